# Nested loops; break leaves only the inner one.
args: -qn 'BEGIN { for (i = 0; i < 4; i++) for (j = 0; j < 5; j++) { if (j == 3) break; n++; } printf("%d\n", n); exit(0); }'
status: 0
stdout:
12

