BEGIN
{
	@a = lquantize(1, 10, 0, 1);
}
