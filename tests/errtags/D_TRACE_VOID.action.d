BEGIN
{
	trace(exit(0));
}
