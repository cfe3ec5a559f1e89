# On return, arg1 is the raw return value and errno is set (close(-1) fails with EBADF).
args: -qn 'syscall::close:return /pid == $target && errno != 0/ { printf("%d %d\n", arg1, errno); }' -c "$T/badclose"
status: 0
stdout:
-9 9

