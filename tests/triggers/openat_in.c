/* openat_in DIR NAME: opens DIR, then NAME relative to it with openat(2)
 * (O_RDONLY), so the dirfd is a real descriptor (not AT_FDCWD) and NAME is a
 * string on the stack, paged in. Exits 0 if both opened. */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int dir = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dir < 0)
		return 1;
	int fd = openat(dir, argv[2], O_RDONLY);
	if (fd < 0)
		return 1;
	close(fd);
	close(dir);
	return 0;
}
