BEGIN
{
	/* A field width must be an integer. */
	printf("%*d\n", "wide", 3);
}
