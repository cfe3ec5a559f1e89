BEGIN
{
	x = curthread.pid;
}
