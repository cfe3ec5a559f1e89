# Clauses for one probe run in program order and share globals.
args: -qn 'BEGIN { x = 1; } BEGIN { x = x * 10; } BEGIN { printf("%d\n", x); exit(0); }'
status: 0
stdout:
10

