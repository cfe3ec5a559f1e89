BEGIN
{
	x = "abc";
	x |= 1;
}
