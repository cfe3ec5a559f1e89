BEGIN
{
	speculate(1);
	printf("speculative\n");
	chill(100);
}
