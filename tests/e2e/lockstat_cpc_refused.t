# lockstat probes (vmlinux, function empty, documented names and arguments)
# are listed; enabling one needs kernel-function attachment, and cpc probes
# (<event>-<mode>-<count>) need hardware counters, which this VM lacks: each
# fails in one line saying so.
sh: $DTRACE -l -P lockstat | awk 'NR == 2 || NR == 12 { print $2, $3, $4 }'; $DTRACE -lvn lockstat:::rw-spin | grep 'args\['; $DTRACE -n 'lockstat:::spin-acquire { @ = count(); }' 2>&1; echo "status $?"; [ -e /sys/bus/event_source/devices/cpu ] || $DTRACE -n 'cpc:::cycles-user-100000 { @[execname] = count(); }'
status: 1
stdout:
lockstat vmlinux adaptive-acquire
lockstat vmlinux spin-spin
		args[0]: struct rwlock *
		args[1]: uint64_t
		args[2]: int
dtrace: could not enable tracing: lockstat:vmlinux::spin-acquire: spin-acquire is built on kernel lock functions (_raw_spin_lock): kernel function probes need fentry/fexit or kprobes: this kernel refuses fentry programs (BPF_PROG_TYPE_TRACING: Operation not permitted) and has no kprobes (no kprobe PMU)
status 1
stderr:
dtrace: could not enable tracing: cpc:::cycles-user-100000: this machine has no hardware performance counters (perf has no 'cpu' PMU, only software events such as cpu-clock: profile-N probes sample that)
