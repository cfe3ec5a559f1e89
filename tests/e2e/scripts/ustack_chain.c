/*
 * A known call chain for user-stack tests: main -> a -> b -> c, where c makes
 * getppid system calls. The results are used after each call so that no call
 * becomes a tail jump, and noinline keeps every function a frame of its own.
 * It lingers a little before exiting, so a tracer sees it alive.
 */
#include <sys/syscall.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) long c(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += syscall(SYS_getppid);
	sink = s;
	return s;
}

__attribute__((noinline)) long b(long n)
{
	return c(n) * 3 + n;
}

__attribute__((noinline)) long a(long n)
{
	return b(n) * 5 + n;
}

int main(int argc, char **argv)
{
	long r;

	(void)argv;
	r = a(argc + 2);
	usleep(300000);
	return (int)(r & 1);
}
