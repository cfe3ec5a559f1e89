BEGIN
{
	x = $1;
}
