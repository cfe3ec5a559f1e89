BEGIN
{
	@a = count();
	trunc(@a, 4, 1);
}
