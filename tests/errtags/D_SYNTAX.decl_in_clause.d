BEGIN
{
	int i;
}
/* D's grammar has no declaration statement: only ';', expressions, if/else and blocks. */
