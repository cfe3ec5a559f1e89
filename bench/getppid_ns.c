/* getppid_ns: time getppid(2) for the per-event benchmark.
 *
 * usage: getppid_ns CALLS ROUNDS [OUTFILE] [getpid|getppid] [cpu]
 *
 * Makes ROUNDS rounds of CALLS getppid(2) calls, through syscall(2) so libc cannot
 * cache or skip them, timing each round with clock_gettime(CLOCK_MONOTONIC).
 * With a fourth argument "getpid" it calls getpid(2) instead: a syscall nobody
 * traces, to measure what tracing getppid costs every other syscall.
 * Prints the median round's nanoseconds per call as one line "ns_per_call N.NN"
 * to OUTFILE (or stdout), so a tracer's own output on stdout does not mix with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	long rounds = argc > 2 ? atol(argv[2]) : 5;
	if (calls < 1 || rounds < 1 || rounds > 1000) {
		fprintf(stderr, "usage: getppid_ns CALLS ROUNDS [OUTFILE] [getpid]\n");
		return 2;
	}
	long nr = (argc > 4 && strcmp(argv[4], "getpid") == 0) ? SYS_getpid : SYS_getppid;
	if (argc > 5 && strcmp(argv[5], "cpu") == 0)
		clock_id = CLOCK_THREAD_CPUTIME_ID;
	double *per = calloc((size_t)rounds, sizeof(double));
	if (per == NULL)
		return 1;
	for (long r = 0; r < rounds; r++) {
		double t0 = now_ns();
		for (long i = 0; i < calls; i++)
			syscall(nr);
		per[r] = (now_ns() - t0) / (double)calls;
	}
	qsort(per, (size_t)rounds, sizeof(double), cmp_double);
	FILE *out = stdout;
	if (argc > 3 && (out = fopen(argv[3], "w")) == NULL) {
		perror(argv[3]);
		return 1;
	}
	fprintf(out, "ns_per_call %.2f\n", per[rounds / 2]);
	fclose(out);
	free(per);
	return 0;
}
