BEGIN
{
	@totals = sum(1);
	@totals;
}
