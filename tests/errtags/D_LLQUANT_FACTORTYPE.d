BEGIN
{
	@a = llquantize(1, timestamp, 0, 2, 10);
}
