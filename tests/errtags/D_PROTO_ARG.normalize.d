BEGIN
{
	@a = sum(5);
	normalize(@a, "two");
}
