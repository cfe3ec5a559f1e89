BEGIN
{
	a = speculation();
	b = speculation();
}

BEGIN
{
	speculate(a);
	speculate(b);
}
