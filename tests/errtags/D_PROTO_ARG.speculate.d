BEGIN
{
	speculate("one");
}
