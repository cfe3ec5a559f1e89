BEGIN
{
	x = ;
}
