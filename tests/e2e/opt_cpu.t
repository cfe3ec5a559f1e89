# -x cpu=N: probes fire only on CPU N. The workload is pinned to CPU 0, so with
# cpu=0 every call is seen (keyed by the cpu built-in) and with cpu=1 none is.
sh: $DTRACE -x cpu=0 -qn 'syscall::getppid:entry /pid == $target/ { @[cpu] = count(); }' -c "taskset -c 0 $T/getppid_loop 100"; $DTRACE -x cpu=1 -qn 'syscall::getppid:entry /pid == $target/ { @[cpu] = count(); } END { printf("none\n"); }' -c "taskset -c 0 $T/getppid_loop 100"
status: 0
stdout:

        0              100
none

