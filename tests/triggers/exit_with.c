/* Exits with the status given as argv[1] after making one getpid(2) call. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	syscall(SYS_getpid);
	return argc > 1 ? atoi(argv[1]) : 0;
}
