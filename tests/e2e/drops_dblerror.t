# A fault in an ERROR clause is not reported as a fault of its own: each one
# is counted and reported as an error in the ERROR probe enabling
# (DTRACEDROP_DBLERROR), and the next ERROR clause still runs.
args: -x droptags -qn 'BEGIN { x = *(int *)0; } ERROR { y = *(int *)8; } ERROR { z = *(int *)16; } BEGIN { exit(0); }'
status: 0
stdout:

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x0\) at BPF pc [0-9]+
dtrace: \[DTRACEDROP_DBLERROR\] 2 errors in ERROR probe enabling
