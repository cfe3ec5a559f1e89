/* USDT probes through <sys/sdt.h>: `trig:::step` (an int and a string) fires
 * 4 times; `trig:::step-done` (a long) is guarded by its semaphore, so it
 * fires only while it is traced; the program exits with status 3 if it ever
 * saw it enabled, 0 if not (it prints nothing, so as not to mix with dtrace).
 * `trig:::twice` has two sites whose argument is a different constant (1, 2). */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short trig_step_semaphore __attribute__((section(".probes")));
unsigned short trig_step__done_semaphore __attribute__((section(".probes")));
unsigned short trig_twice_semaphore __attribute__((section(".probes")));

static const char word[] = "hello";

__attribute__((noinline)) static void step(int i)
{
	DTRACE_PROBE2(trig, step, i, word);
	if (trig_step__done_semaphore)
		DTRACE_PROBE1(trig, step__done, (long)i * 100);
}

int main(void)
{
	int enabled = 0;
	/* Touch the string so that its page is present when the probe reads it. */
	volatile char c = *(const volatile char *)word;
	(void)c;
	for (int i = 0; i < 4; i++) {
		step(i);
		enabled |= trig_step__done_semaphore != 0;
	}
	DTRACE_PROBE1(trig, twice, 1);
	DTRACE_PROBE1(trig, twice, 2);
	return enabled ? 3 : 0;
}
