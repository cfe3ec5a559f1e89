BEGIN
{
	@a = llquantize(1, 10, 0, 2, 10);
	@a = llquantize(2, 5, 0, 2, 5);
}
