#pragma D option quiet

BEGIN
{
	printf("[%s] [%s] [%s] [%s] [%s] [%s]\n", basename("/usr/lib/libc.so.6"), basename("/usr/lib//"),
	    basename("/"), basename(""), basename("file"), basename("//a"));
	printf("[%s] [%s] [%s] [%s] [%s] [%s]\n", dirname("/usr/lib/libc.so.6"), dirname("/usr/lib//"),
	    dirname("/"), dirname(""), dirname("file"), dirname("//a"));
	printf("[%s] [%s] [%s] [%s]\n", cleanpath("/a//b/./c/../d"), cleanpath("/a/b/.."),
	    cleanpath("/a/.hidden/..x/."), cleanpath("rel/../x"));
	exit(0);
}
