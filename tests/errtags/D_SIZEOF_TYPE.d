BEGIN
{
	x = sizeof (void);
}
