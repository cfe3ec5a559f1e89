BEGIN
{
	@num[1] = count();
	@str["x"] = count();
	printa("%d %@d %@d\n", @num, @str);
}
