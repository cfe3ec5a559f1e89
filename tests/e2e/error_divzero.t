# A divide-by-zero faults the clause (DTrace's default ERROR message), later clauses still run.
# The fault message has Oracle DTrace 2.x's form: the clause (dt_clause_N), the probe, the fault and the BPF offset.
args: -qn 'BEGIN { x = 0; y = 1 / x; } BEGIN { printf("after\n"); exit(0); }'
status: 0
stdout:
after

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): divide-by-zero at BPF pc [0-9]+
