BEGIN
{
	x = 0x1ffffffffffffffff;
}
