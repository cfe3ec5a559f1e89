# lockstat's contention probes, on the kernel's contention tracepoints: a
# thread that blocks on a tty's read mutex (held by another reader waiting for
# input, for about 0.3 s) fires adaptive-block once it has the mutex, with the
# time it waited in arg1; a process killed while blocked on that mutex fires
# adaptive-acquire-error with the error (-EINTR) in args[1]. The spin probes
# load and attach beside them.
sh: $DTRACE -q -n 'BEGIN { waited = 0; blocked = 0; } lockstat:::adaptive-block /pid == $target/ { blocked++; waited = arg1 > waited ? arg1 : waited; } lockstat:::adaptive-acquire-error /progenyof($target) && pid != $target/ { printf("error %d\n", args[1]); } lockstat:::adaptive-spin, lockstat:::spin-spin, lockstat:::rw-spin { spun++; } END { printf("blocked: %s, for over 0.25 s: %s\n", blocked > 0 ? "yes" : "no", waited > 250000000 ? "yes" : "no"); }' -c "python3 $S/pty_readers.py"
status: 0
stdout-has:
done
error -4
blocked: yes, for over 0.25 s: yes
