BEGIN
{
	@a = count();
	printa("", @a);
}
