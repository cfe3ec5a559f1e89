BEGIN
{
	printa("%d");
}
