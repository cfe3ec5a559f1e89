BEGIN
{
	x = (short char)1;
}
