BEGIN
{
	x = (int)"abc";
}
