BEGIN
{
	x = sizeof (enum nosuch_tag);
}
