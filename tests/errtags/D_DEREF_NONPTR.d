BEGIN
{
	x = *timestamp;
}
