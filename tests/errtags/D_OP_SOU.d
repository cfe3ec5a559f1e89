BEGIN
{
	x = *curthread;
}
