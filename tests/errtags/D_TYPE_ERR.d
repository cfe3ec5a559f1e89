/* An aggregate whose size overflows. */
struct big {
	char a[9223372036854775807];
	char b[9223372036854775807];
};
