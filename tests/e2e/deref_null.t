# Dereferencing a bad pointer faults: the clause's record is discarded (as DTrace
# does), ERROR reports the address, later clauses still run.
# The fault message has Oracle DTrace 2.x's form: the clause (dt_clause_N), the probe, the fault and the BPF offset.
args: -qn 'BEGIN { printf("before\n"); x = *(int *)0; printf("not reached\n"); } BEGIN { printf("after\n"); exit(0); }'
status: 0
stdout:
after

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x0\) at BPF pc [0-9]+
