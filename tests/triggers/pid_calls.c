/* Calls known functions a known number of times, for pid-provider tests:
 * work(i, 10*i) 5 times (returns i + 10*i), then getpid(2) and getppid(2)
 * through libc N times each (argv[1], default 3). It prints nothing (its
 * output would interleave with dtrace's) and exits 0 if the sum was 110. */
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline, noipa)) long work(long a, long b)
{
	return a + b;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	long s = 0;
	for (long i = 0; i < 5; i++)
		s += work(i, 10 * i);
	for (long i = 0; i < n; i++) {
		getpid();
		getppid();
	}
	return s == 110 ? 0 : 1;
}
