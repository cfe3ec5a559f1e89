BEGIN
{
	speculate(1);
	printf("speculative\n");
	@dist = quantize(10);
}
