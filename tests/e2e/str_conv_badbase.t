# A base outside 2..36 is an illegal operation.
args: -qn 'BEGIN { x = 1; trace(lltostr(10, x)); } BEGIN { exit(0); }'
status: 0
stdout:

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): illegal operation at BPF pc [0-9]+
