# bpflogsize set by a pragma bounds the verifier log as -x does; a size the
# log fits in shows the whole log, each line after "BPF: " (the verifier's
# reason among them), then the probe the refused program was loaded for.
sh: printf '#pragma D option bpflogsize=300\nBEGIN { x = 1; exit(0); }\n' > /tmp/dt_bpflogsize.$$.d; DTRACE_TEST_REJECT_CLAUSE=1 "$DTRACE" -s /tmp/dt_bpflogsize.$$.d; s=$?; rm -f /tmp/dt_bpflogsize.$$.d; DTRACE_TEST_REJECT_CLAUSE=1 "$DTRACE" -x bpflogsize=1m -n 'BEGIN { x = 1; exit(0); }' 2>&1 | awk '/^BPF: / { n++; if ($0 ~ /invalid read from stack/) r = 1; next } { print } END { print (n > 2 ? "log shown" : "no log"); print (r ? "reason shown" : "no reason") }'; exit $s
status: 1
stdout:
dtrace: could not enable tracing: BPF program load for 'dtrace:::BEGIN' failed: Permission denied
log shown
reason shown
stderr:
BPF verifier log is incomplete and is not reported.
Set DTrace option 'bpflogsize' to some greater size for more output.
(Current size is 300.)
dtrace: could not enable tracing: BPF program load for 'dtrace:::BEGIN' failed: Permission denied
