BEGIN
{
	x = xlate <int> (1);
}
