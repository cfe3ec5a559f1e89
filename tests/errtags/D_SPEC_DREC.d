BEGIN
{
	a = speculation();
	trace(a);
	speculate(a);
}
