/* Calls work(0) itself, then forks two children one after the other (each
 * waited for): the first calls work(10); the second calls work(20) and forks a
 * grandchild that calls work(100). For -x followfork: every call is seen with
 * it, only work(0) without it. Prints nothing; exits 0. */
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline, noipa)) int work(int x)
{
	return x + 1;
}

int main(void)
{
	int s = work(0);

	for (int i = 1; i <= 2; i++) {
		pid_t c = fork();

		if (c == 0) {
			work(i * 10);
			if (i == 2) {
				pid_t g = fork();

				if (g == 0) {
					work(100);
					_exit(0);
				}
				waitpid(g, NULL, 0);
			}
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	return s == 1 ? 0 : 1;
}
