# Five enabled syscalls are traced on their own tracepoints
# (syscalls:sys_enter_<name>, perf events, one link each), which no other
# syscall runs into; seven go through one raw sys_enter link and no perf
# event (instant to detach, at a cost to every syscall). What dtrace holds
# open while its -c command runs shows which.
sh: for n in getppid,read,write,openat,close getppid,read,write,openat,close,mmap,brk; do $DTRACE -q -n "$(echo $n | sed 's/\([a-z]*\)/syscall::\1:entry/g') { @[probefunc] = count(); } END { trunc(@); }" -c "sh $S/tracer_fds.sh" || exit 1; done
status: 0
stdout:
perf events: some
bpf links: 5

perf events: none
bpf links: 1

