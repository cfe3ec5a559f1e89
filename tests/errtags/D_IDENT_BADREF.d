/* An associative array's name is not a value. */
BEGIN
{
	a[1] = 2;
	trace(a);
}
