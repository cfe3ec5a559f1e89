int a[4];

BEGIN
{
	trace(a[4]);
}
