BEGIN
{
	/* A stack of no frames. */
	stack(0);
}
