# do ... while runs its body once before testing the condition.
args: -qn 'BEGIN { x = 100; do { x++; } while (x < 5); y = 0; do { y += 2; } while (y < 9); printf("%d %d\n", x, y); exit(0); }'
status: 0
stdout:
101 10

