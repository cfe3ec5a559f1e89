BEGIN
{
	printf("total: %@u\n", 10);
}
