/* A function of eight arguments, of which the x86-64 ABI passes the last two on
 * the stack: eight(i, ..., 70 + i) is called 3 times (i = 1, 2, 3). It prints
 * nothing and exits 0 if the sum of the results was right. */
__attribute__((noinline, noipa)) long eight(long a, long b, long c, long d, long e,
					    long f, long g, long h)
{
	return a + b + c + d + e + f + g + h;
}

int main(void)
{
	long s = 0;
	for (long i = 1; i <= 3; i++)
		s += eight(i, 10 + i, 20 + i, 30 + i, 40 + i, 50 + i, 60 + i, 70 + i);
	/* 3 calls of 8 * i + 280 for i = 1..3: 8 * 6 + 3 * 280. */
	return s == 888 ? 0 : 1;
}
