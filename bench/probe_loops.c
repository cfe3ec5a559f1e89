/* The workloads of bench/probe_cost.py: a loop that fires one probe per
 * operation, timed by the loop itself.
 *
 *   probe_loops MODE CALLS ROUNDS OUT
 *
 * MODE is `malloc` (malloc(16) and free, CALLS times; built static, so that a
 * uprobe on this program's own malloc fires in no other process), `usdt` (a
 * <sys/sdt.h> probe `bench:::tick`, CALLS times), `exec` (fork and exec
 * /bin/true, CALLS times) or `pingpong` (a byte sent back and forth CALLS
 * times over two pipes between this process and a child, both pinned to
 * CPU 0: two context switches per operation). Each of ROUNDS rounds is
 * timed; OUT gets one line:
 *
 *   <median ns per op> <best ns per op> <bpf run_time_ns> <bpf run_cnt> <ctxt>
 *
 * The last two are summed over the BPF programs the parent process (the
 * tracer that ran us with -c) holds open, read from /proc/PPID/fdinfo after
 * the last round: the kernel's own count of what the tracer's programs cost
 * (only while BPF statistics are enabled; 0 0 otherwise). <ctxt> is the
 * machine's context switches (/proc/stat) from our start to that read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline)) static void tick(long i)
{
	DTRACE_PROBE1(bench, tick, i);
}

/* The machine's context switches so far (the `ctxt` line of /proc/stat). */
static unsigned long long ctxt(void)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	unsigned long long v = 0;
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "ctxt %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* CALLS round trips of one byte with a child, both on CPU 0. */
static void pingpong(long calls)
{
	int there[2], back[2];
	char b = 0;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof one, &one);
	if (pipe(there) != 0 || pipe(back) != 0)
		exit(1);
	pid_t pid = fork();
	if (pid == 0) {
		for (long i = 0; i < calls; i++)
			if (read(there[0], &b, 1) != 1 || write(back[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < calls; i++)
		if (write(there[1], &b, 1) != 1 || read(back[0], &b, 1) != 1)
			break;
	waitpid(pid, NULL, 0);
	close(there[0]);
	close(there[1]);
	close(back[0]);
	close(back[1]);
}

static void run(const char *mode, long calls)
{
	if (strcmp(mode, "malloc") == 0) {
		for (long i = 0; i < calls; i++) {
			void *p = malloc(16);
			__asm__ volatile("" : : "r"(p) : "memory");
			free(p);
		}
	} else if (strcmp(mode, "usdt") == 0) {
		for (long i = 0; i < calls; i++)
			tick(i);
	} else if (strcmp(mode, "openat") == 0) {
		for (long i = 0; i < calls; i++) {
			int fd = openat(AT_FDCWD, "/dev/null", O_RDONLY);
			if (fd >= 0)
				close(fd);
		}
	} else if (strcmp(mode, "pingpong") == 0) {
		pingpong(calls);
	} else {
		for (long i = 0; i < calls; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sum run_time_ns and run_cnt over the BPF programs process `pid` holds. */
static void bpf_stats(pid_t pid, unsigned long long *ns, unsigned long long *cnt)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fdinfo", (int)pid);
	DIR *d = opendir(path);
	*ns = *cnt = 0;
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char file[512], line[256];
		snprintf(file, sizeof file, "%s/%s", path, e->d_name);
		FILE *f = fopen(file, "r");
		if (f == NULL)
			continue;
		unsigned long long v;
		while (fgets(line, sizeof line, f) != NULL) {
			if (sscanf(line, "run_time_ns: %llu", &v) == 1)
				*ns += v;
			else if (sscanf(line, "run_cnt: %llu", &v) == 1)
				*cnt += v;
		}
		fclose(f);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s malloc|usdt|openat|exec|pingpong CALLS ROUNDS OUT\n",
			argv[0]);
		return 2;
	}
	long calls = atol(argv[2]);
	int rounds = atoi(argv[3]);
	if (calls <= 0 || rounds <= 0 || rounds > 1000)
		return 2;
	double per[1000];
	unsigned long long ctxt0 = ctxt();
	run(argv[1], calls / 10 + 1); /* warm up: page in, fill caches */
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();
		run(argv[1], calls);
		per[r] = (now_ns() - t0) / calls;
	}
	qsort(per, rounds, sizeof per[0], cmp);
	unsigned long long ns, cnt;
	bpf_stats(getppid(), &ns, &cnt);
	unsigned long long switches = ctxt() - ctxt0;
	FILE *out = fopen(argv[4], "w");
	if (out == NULL)
		return 1;
	fprintf(out, "%.1f %.1f %llu %llu %llu\n", per[rounds / 2], per[0], ns, cnt, switches);
	fclose(out);
	return 0;
}
