BEGIN
{
	/* %@ prints an aggregation value: printa only. */
	printf("%@u\n", 7);
}
