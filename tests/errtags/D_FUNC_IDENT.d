BEGIN
{
	@calls = tick-1();
}
