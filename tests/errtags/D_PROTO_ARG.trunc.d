BEGIN
{
	@a = count();
	trunc(@a, "ten");
}
