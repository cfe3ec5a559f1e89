BEGIN
{
	x = curthread->comm[1, 2];
}
