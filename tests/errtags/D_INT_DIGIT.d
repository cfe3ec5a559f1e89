BEGIN
{
	x = 0789;
}
