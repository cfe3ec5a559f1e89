BEGIN
{
	printa();
}
