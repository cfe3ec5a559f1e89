BEGIN
{
	@counts[0][1] = count();
}
