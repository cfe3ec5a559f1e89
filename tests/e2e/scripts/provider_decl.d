provider myprov {
	probe start(int, char *);
	probe done();
};

BEGIN
{
	printf("ok\n");
	exit(0);
}
