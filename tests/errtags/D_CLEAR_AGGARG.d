BEGIN
{
	clear(probename);
}
