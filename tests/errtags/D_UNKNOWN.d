BEGIN
{
	x = sizeof (short long int);
}
