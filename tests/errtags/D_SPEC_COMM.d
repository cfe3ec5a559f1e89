BEGIN
{
	a = speculation();
	commit(a);
	speculate(a);
}
