BEGIN
{
	a = speculation();
	@calls = count();
	speculate(a);
}
