BEGIN
{
	x = timestamp->a;
}
