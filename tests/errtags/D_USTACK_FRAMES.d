BEGIN
{
	/* A user stack of no frames. */
	ustack(0);
}
