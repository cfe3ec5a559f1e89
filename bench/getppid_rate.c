/* getppid_rate: make getppid(2) calls at a set rate, for the printf
 * throughput benchmark.
 *
 * usage: getppid_rate RATE SECONDS
 *
 * Makes RATE * SECONDS getppid(2) calls (through syscall(2), so libc cannot
 * cache them), paced in 1 ms slices against CLOCK_MONOTONIC so that the calls
 * are spread evenly over SECONDS. Prints "calls N achieved_rate R" on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: getppid_rate RATE SECONDS\n");
		return 2;
	}
	double rate = atof(argv[1]), secs = atof(argv[2]);
	long total = (long)(rate * secs), done = 0;
	double start = now_s();
	while (done < total) {
		/* Calls due by now, at most one more millisecond's worth at a time. */
		long due = (long)((now_s() - start) * rate) + (long)(rate / 1000) + 1;
		if (due > total)
			due = total;
		while (done < due) {
			syscall(SYS_getppid);
			done++;
		}
		while (done < total && (long)((now_s() - start) * rate) < done)
			;
	}
	double took = now_s() - start;
	fprintf(stderr, "calls %ld achieved_rate %.0f\n", done, took > 0 ? done / took : 0);
	return 0;
}
