# The ERROR probe fires on a fault with arg4 = the fault type (DTRACEFLT_DIVZERO is 4).
# The fault message has Oracle DTrace 2.x's form: the clause (dt_clause_N), the probe, the fault and the BPF offset.
args: -qn 'BEGIN { x = 0; y = 1 / x; } ERROR { printf("error %d\n", arg4); exit(0); }'
status: 0
stdout:
error 4

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): divide-by-zero at BPF pc [0-9]+
