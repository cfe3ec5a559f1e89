# A loop that runs past the per-firing pass budget ends the firing with an error; tracing goes on.
args: -qn 'BEGIN { x = 0; while (x >= 0) x++; } tick-10ms { exit(0); }'
status: 0
stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): illegal operation at BPF pc [0-9]+
