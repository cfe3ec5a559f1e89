BEGIN
{
	@one[1, 2] = count();
	@two[1] = count();
	printa(@one, @two);
}
