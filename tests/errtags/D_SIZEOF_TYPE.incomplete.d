BEGIN
{
	x = sizeof (struct nosuch_tag);
}
