# USDT probes from <sys/sdt.h> notes: arguments decoded from each note's spec
# (a register and a pointer), `__` in a probe name shown as `-`; the
# is-enabled probe step-done fires because tracing it sets its semaphore.
args: -q -n 'trig$target:::step { printf("%s:%s %d %s\n", probefunc, probename, arg0, copyinstr(arg1)); } trig$target:::step-done { printf("done %d\n", arg0); }' -c "$T/usdt_probes"
status: 0
stdout:
step:step 0 hello
done 0
step:step 1 hello
done 100
step:step 2 hello
done 200
step:step 3 hello
done 300

