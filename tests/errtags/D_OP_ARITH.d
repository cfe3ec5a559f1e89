BEGIN
{
	x = -"a";
}
