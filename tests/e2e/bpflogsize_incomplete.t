# -x bpflogsize bounds the verifier log: a rejection whose log needs more is
# reported as incomplete, with the size, then as DTrace reports a program the
# kernel refused: the probe it was loaded for and the errno's text.
# (The runtime's test hook makes the verifier reject clause 1.)
sh: DTRACE_TEST_REJECT_CLAUSE=1 "$DTRACE" -x bpflogsize=200 -n 'BEGIN { x = 1; exit(0); }'
status: 1
stdout:
stderr:
BPF verifier log is incomplete and is not reported.
Set DTrace option 'bpflogsize' to some greater size for more output.
(Current size is 200.)
dtrace: could not enable tracing: BPF program load for 'dtrace:::BEGIN' failed: Permission denied
