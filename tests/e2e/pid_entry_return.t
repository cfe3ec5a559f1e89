# Entry probes see the arguments (ABI registers); return probes see the return
# value in arg1 (Dynamic Tracing Guide, "pid Provider": return probes).
args: -q -n 'pid$target:a.out:work:entry { printf("%s:%s %d %d\n", probefunc, probename, arg0, arg1); } pid$target:a.out:work:return { printf("%s:%s %d\n", probefunc, probename, arg1); }' -c "$T/pid_calls"
status: 0
stdout:
work:entry 0 0
work:return 0
work:entry 1 10
work:return 11
work:entry 2 20
work:return 22
work:entry 3 30
work:return 33
work:entry 4 40
work:return 44

