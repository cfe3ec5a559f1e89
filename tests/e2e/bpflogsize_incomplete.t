# -x bpflogsize bounds the verifier log: a rejection whose log needs more is
# reported as incomplete, with the size, and the reason from the log's end.
# (The runtime's test hook makes the verifier reject clause 1.)
sh: DTRACE_TEST_REJECT_CLAUSE=1 "$DTRACE" -x bpflogsize=200 -n 'BEGIN { x = 1; exit(0); }'
status: 1
stdout:
stderr:
BPF verifier log is incomplete and is not reported.
Set DTrace option 'bpflogsize' to some greater size for more output.
(Current size is 200.)
dtrace: the BPF verifier rejected clause 1 (program dtrace_begin): invalid read from stack R10 off=0 size=8
