#pragma D option quiet

BEGIN
{
	s = "hello world";
	printf("%d %d %d\n", strlen(s), strlen(""), strlen(substr(s, 6)));
	printf("[%s] [%s] [%s]\n", strjoin("foo", "bar"), strjoin(s, ""), strjoin("", ""));
	printf("[%s] [%s]\n", toupper("MiXeD case 42!"), tolower("MiXeD CASE 42!"));
	/* Nested calls: each result is a string of its own. */
	printf("[%s]\n", strjoin(toupper("a"), strjoin("b", tolower("C"))));
	exit(0);
}
