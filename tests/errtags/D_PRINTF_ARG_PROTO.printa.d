BEGIN
{
	@total = sum(1);
	printa("%d %@d\n", @total);
}
