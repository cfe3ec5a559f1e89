# A divide-by-zero faults the clause (DTrace's default ERROR message), later clauses still run.
# The fault message is followed by "dtrace: 1 error on CPU N" (Solaris Dynamic Tracing Guide, "ERROR Probe" example).
args: -qn 'BEGIN { x = 0; y = 1 / x; } BEGIN { printf("after\n"); exit(0); }'
status: 0
stdout:
after

stderr-re:
dtrace: error on enabled probe ID 1 \(ID 1: dtrace:::BEGIN\): divide-by-zero in action #2 at DIF offset [0-9]+
dtrace: 1 error on CPU [0-9]+
