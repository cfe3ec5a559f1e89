BEGIN
{
	x = sizeof (`);
}
