#pragma D option quiet

BEGIN
{
	s = "abcdefghij";
	/* A non-negative index counts from the start, a negative one from the end. */
	printf("[%s] [%s] [%s]\n", substr(s, 0), substr(s, 3), substr(s, -3));
	/* A length limits the result; a negative length stops that many bytes short of the end. */
	printf("[%s] [%s] [%s]\n", substr(s, 2, 3), substr(s, 2, -3), substr(s, -4, 2));
	/* Out of range: past the end is empty; a too-negative index starts at 0 and
	   the part of the length before the start is lost. */
	printf("[%s] [%s] [%s] [%s]\n", substr(s, 10), substr(s, 50, 2), substr(s, -20), substr(s, -12, 5));
	printf("[%s] [%s] [%s]\n", substr(s, -20, 3), substr(s, 4, 0), substr(s, 4, -10));
	exit(0);
}
