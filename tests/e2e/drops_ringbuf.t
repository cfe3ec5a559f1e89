# A full ring buffer drops records, and every drop is counted and reported as dtrace(1) does: one "N drops on CPU C" line each time new drops are found (the workload is pinned to CPU 0, so every line names CPU 0; a single drop is "1 drop", singular, as dtrace(1) words it).
sh: "$DTRACE" -x bufsize=4k -qn 'syscall::getppid:entry /pid == $target/ { printf("%d %d %d %d\n", arg0, arg1, arg2, timestamp); }' -c "taskset -c 0 $T/getppid_loop 200000" 2>&1 >/dev/null | sed -E 's/^dtrace: [0-9]+ drops? on CPU 0$/dtrace: N drops on CPU 0/' | sort -u
status: 0
stdout:
dtrace: N drops on CPU 0
