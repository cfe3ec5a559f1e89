BEGIN
{
	x = 1 + commit(1);
}
