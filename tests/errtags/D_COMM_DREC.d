BEGIN
{
	printf("about to commit\n");
	commit(1);
}
