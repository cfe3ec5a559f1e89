/* A library with a USDT probe (from dtrace -h) in a leaf function built
 * without optimization, so its local lives in the stack's red zone. */
#include "late.h"

int work(int n)
{
	LATE_FIRE(n, n * 10);
	return n * 2;
}
