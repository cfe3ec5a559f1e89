BEGIN
{
	@a = lquantize(1, 10, 10, 1);
}
