int n;

BEGIN
{
	n += alloca(8);
}
