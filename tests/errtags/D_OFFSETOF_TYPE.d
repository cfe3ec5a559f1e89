BEGIN
{
	x = offsetof(int, a);
}
