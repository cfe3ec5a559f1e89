BEGIN
{
	/* The current directory is not a file to write to. */
	freopen(".");
}
