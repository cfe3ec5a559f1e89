#pragma D option quiet

BEGIN
{
	s = "fooBARfooBAR";
	printf("%d %d %d %d\n", index(s, "BAR"), rindex(s, "BAR"), index(s, "baz"), rindex(s, "baz"));
	/* A start position: index searches from it, rindex at or before it; a
	   negative start is 0. */
	printf("%d %d %d %d %d\n", index(s, "foo", 1), index(s, "foo", -5), rindex(s, "foo", 5), rindex(s, "BAR", 2), index(s, "foo", 20));
	/* The empty substring is found at the start; nothing is found in "". */
	printf("%d %d\n", index(s, ""), index("", "x"));
	printf("[%s] [%s] [%s]\n", strchr(s, 'B'), strrchr(s, 'o'), strstr(s, "Rfo"));
	/* No match is NULL. */
	printf("%s %s %s\n", strchr(s, 'z') == NULL ? "null" : "found",
	    strstr(s, "xyz") == NULL ? "null" : "found", strrchr(s, 'f') != NULL ? "found" : "null");
	exit(0);
}
