int i;

BEGIN
{
	trunc(i);
}
