# bpflogsize set by a pragma bounds the verifier log as -x does; a size the
# log fits in reports the rejection alone.
sh: printf '#pragma D option bpflogsize=300\nBEGIN { x = 1; exit(0); }\n' > /tmp/dt_bpflogsize.$$.d; DTRACE_TEST_REJECT_CLAUSE=1 "$DTRACE" -s /tmp/dt_bpflogsize.$$.d; s=$?; rm -f /tmp/dt_bpflogsize.$$.d; DTRACE_TEST_REJECT_CLAUSE=1 "$DTRACE" -x bpflogsize=1m -n 'BEGIN { x = 1; exit(0); }' 2>&1; exit $s
status: 1
stdout:
dtrace: the BPF verifier rejected clause 1 (program dtrace_begin): invalid read from stack R10 off=0 size=8
stderr:
BPF verifier log is incomplete and is not reported.
Set DTrace option 'bpflogsize' to some greater size for more output.
(Current size is 300.)
dtrace: the BPF verifier rejected clause 1 (program dtrace_begin): invalid read from stack R10 off=0 size=8
