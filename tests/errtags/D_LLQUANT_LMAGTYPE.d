BEGIN
{
	@a = llquantize(1, 10, timestamp, 2, 10);
}
