/* Writes the NUL-terminated message "hello memory" (12 bytes) to /dev/null once. */
#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	static const char msg[] = "hello memory";
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return 1;
	if (write(fd, msg, sizeof(msg) - 1) < 0)
		return 1;
	close(fd);
	return 0;
}
