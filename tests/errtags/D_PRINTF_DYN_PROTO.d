BEGIN
{
	/* The precision is taken from an argument that is not there. */
	printf("%.*s\n");
}
