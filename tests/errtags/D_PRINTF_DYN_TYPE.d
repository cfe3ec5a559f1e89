BEGIN
{
	printf("%10.*x\n", execname, 255);
}
