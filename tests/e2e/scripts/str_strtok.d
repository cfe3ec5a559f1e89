#pragma D option quiet

BEGIN
{
	this->t = strtok(",,one,,two;three,", ",");
	printf("[%s]", this->t);
	/* The delimiters may change from call to call; a token starts where the
	   previous one ended. */
	this->t = strtok(NULL, ";");
	printf(" [%s]", this->t);
	this->t = strtok(NULL, ",;");
	printf(" [%s]", this->t);
	printf(" %s\n", strtok(NULL, ",") == NULL ? "end" : "more");
}

BEGIN
{
	/* The position is clause-local: a new clause has none, and reading it faults. */
	trace(strtok(NULL, ","));
}

ERROR
{
	printf("fault\n");
	exit(0);
}
