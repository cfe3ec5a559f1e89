/* Calls getppid(2) N times (argv[1], default 1000), through syscall(2) so libc
 * cannot cache or elide it. Used to check that count() equals the calls made. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
