BEGIN
{
	@a = llquantize(1, 10, 70000, 70001, 10);
}
