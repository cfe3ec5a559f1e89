# A glob over every kernel function is refused, on a kernel with neither fentry
# nor kprobes, in one line before any code is generated for its matches: the
# run fits in 450 MB of address space (generating a program for each of the
# ~100,000 matched probes first took over 700 MB before the refusal).
sh: if [ -e /sys/bus/event_source/devices/kprobe ]; then echo "dtrace: could not enable tracing: fbt:vmlinux:x:entry: kernel function probes need fentry/fexit or kprobes: this kernel refuses fentry programs (skipped)" >&2; exit 1; fi; ulimit -v 450000; $DTRACE -n 'fbt:::entry, fbt:::return { @[probefunc] = count(); }'
status: 1
stdout:
stderr-re:
dtrace: could not enable tracing: fbt:vmlinux:[a-z_0-9]+:entry: kernel function probes need fentry/fexit or kprobes: this kernel refuses fentry programs .*
timeout: 60
