# errno.d and signal.d: Linux errno and signal numbers as D constants (loaded only when named).
args: -qn 'BEGIN { printf("%d %d %d %d %d %d %d %d %d\n", EPERM, ENOENT, EBADF, EAGAIN == EWOULDBLOCK, ENOSYS, SIGHUP, SIGKILL, SIGTERM, SIGCHLD); exit(0); }'
status: 0
stdout:
1 2 9 1 38 1 9 15 17

