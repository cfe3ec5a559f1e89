BEGIN
{
	@a = lquantize(1, 0, timestamp, 1);
}
