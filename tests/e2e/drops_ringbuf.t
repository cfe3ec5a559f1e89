# A full ring buffer drops records, and every drop is counted and reported as dtrace(1) does (the workload is pinned to one CPU, so one line reports them).
args: -x bufsize=4k -qn 'syscall::getppid:entry /pid == $target/ { printf("%d %d %d %d\n", arg0, arg1, arg2, timestamp); }' -c "taskset -c 0 $T/getppid_loop 200000"
status: 0
stderr-re:
dtrace: [0-9]+ drops on CPU [0-9]+
