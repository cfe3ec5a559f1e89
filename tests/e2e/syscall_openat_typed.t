# Typed syscall arguments on a few enabled syscalls (served by their own
# tracepoints): openat's args[0] is the int dirfd, args[1] the path, read with
# copyinstr, args[2] the flags; the return probe sees the new descriptor.
args: -qn 'syscall::openat:entry /pid == $target && args[0] >= 0/ { printf("%s %d %d\n", copyinstr((uintptr_t)args[1]), args[0] > 2, args[2]); self->in = 1; } syscall::openat:return /self->in/ { printf("fd %d errno %d\n", arg1 > 2, errno); self->in = 0; }' -c "$T/openat_in /etc hostname"
status: 0
stdout:
hostname 1 0
fd 1 errno 0

