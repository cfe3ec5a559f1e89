BEGIN
{
	normalize(3, 2);
}
