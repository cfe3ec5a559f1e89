BEGIN
{
	q = (char *)alloca(4);
	p = q != NULL ? q : (char *)64;
}
