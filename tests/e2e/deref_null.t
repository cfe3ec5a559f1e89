# Dereferencing a bad pointer faults: the clause's record is discarded (as DTrace
# does), ERROR reports the address, later clauses still run.
# The fault message is followed by "dtrace: 1 error on CPU N" (Solaris Dynamic Tracing Guide, "ERROR Probe" example).
args: -qn 'BEGIN { printf("before\n"); x = *(int *)0; printf("not reached\n"); } BEGIN { printf("after\n"); exit(0); }'
status: 0
stdout:
after

stderr-re:
dtrace: error on enabled probe ID 1 \(ID 1: dtrace:::BEGIN\): invalid address \(0x0\) in action #2 at DIF offset [0-9]+
dtrace: 1 error on CPU [0-9]+
