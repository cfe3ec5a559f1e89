#pragma D option quiet

BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", lltostr(0), lltostr(1234567890123), lltostr(-42), lltostr(-9223372036854775807 - 1));
	/* Other bases: no sign, "0x" in base 16, a leading 0 in base 8. */
	printf("[%s] [%s] [%s] [%s] [%s]\n", lltostr(255, 16), lltostr(0, 16), lltostr(8, 8), lltostr(5, 2), lltostr(35, 36));
	printf("%d %d %d %d\n", strtoll("1234"), strtoll("  -77abc"), strtoll("+12"), strtoll("x1"));
	printf("%d %d %d %d\n", strtoll("ff", 16), strtoll("0x1F", 16), strtoll("777", 8), strtoll("z", 36));
	printf("%d\n", strtoll(lltostr(-123456)));
	exit(0);
}
