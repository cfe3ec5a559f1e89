BEGIN
{
	p = (char *)alloca(4);
	p = (char *)64;
}
