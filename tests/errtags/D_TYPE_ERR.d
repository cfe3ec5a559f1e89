/* An aggregate whose size overflows. */
struct one {
	char a[4294967295];
};
struct big {
	struct one a[4294967295];
	struct one b[4294967295];
};
