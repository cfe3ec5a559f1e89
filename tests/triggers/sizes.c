/* Makes write(2) calls of sizes 1, 2, 4, ... 2^(N-1) bytes to /dev/null, each
 * size written K times: argv[1] = N (default 8), argv[2] = K (default 1). Used for
 * quantize() layouts with known bucket counts. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	int n = argc > 1 ? atoi(argv[1]) : 8;
	int k = argc > 2 ? atoi(argv[2]) : 1;
	int fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || n > 16)
		return 1;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < k; j++)
			if (write(fd, buf, (size_t)1 << i) < 0)
				return 1;
	return 0;
}
