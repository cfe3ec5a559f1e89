# tick-N fires repeatedly; clauses for one probe run in program order.
args: -qn 'tick-10ms { i++; } tick-10ms /i == 5/ { printf("%d\n", i); exit(0); }'
status: 0
stdout:
5

