BEGIN
{
	x = printf("hi");
}
