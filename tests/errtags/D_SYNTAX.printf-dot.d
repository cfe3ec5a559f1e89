BEGIN
{
	printf("%5.2.1d\n", 10);
}
