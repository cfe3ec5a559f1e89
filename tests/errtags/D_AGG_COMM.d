BEGIN
{
	commit(1);
	@n[probename] = sum(2);
}
