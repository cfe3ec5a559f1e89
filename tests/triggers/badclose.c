/* Calls close(-1) once, which fails with EBADF. */
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	syscall(SYS_close, -1);
	return 0;
}
