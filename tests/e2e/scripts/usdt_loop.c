/* A process with a USDT probe `loopy:::tick` (from <sys/sdt.h>) that fires
 * every 10 ms, its argument the count so far, until the process is killed or
 * 30 s have passed. For descriptions like `loopy*:::` that name the provider
 * in every process. */
#include <sys/sdt.h>
#include <unistd.h>

int main(void)
{
	for (long i = 0; i < 3000; i++) {
		DTRACE_PROBE1(loopy, tick, i);
		usleep(10000);
	}
	return 0;
}
