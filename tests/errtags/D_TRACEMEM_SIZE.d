BEGIN
{
	/* Zero bytes of memory. */
	tracemem(curthread, 0);
}
