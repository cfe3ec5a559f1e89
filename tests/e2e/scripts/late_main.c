/* Loads ./liblate.so once tracing has started (argv[1] milliseconds later,
 * so that a probe description naming it matched nothing at first), calls
 * its work() with 1..5 (argv[2] milliseconds apart) and prints the sum of
 * the results on stderr. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	usleep(argc > 1 ? atoi(argv[1]) * 1000 : 0);
	void *h = dlopen("./liblate.so", RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*work)(int) = (int (*)(int))dlsym(h, "work");
	int sum = 0;
	for (int i = 1; i <= 5; i++) {
		usleep(argc > 2 ? atoi(argv[2]) * 1000 : 0);
		sum += work(i);
	}
	fprintf(stderr, "sum %d\n", sum);
	dlclose(h);
	return 0;
}
