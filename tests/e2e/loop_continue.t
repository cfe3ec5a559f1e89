# continue skips the rest of the body but still runs the for loop's step.
args: -qn 'BEGIN { for (i = 0; i < 10; i++) { if (i % 2) continue; e += i; } printf("%d %d\n", e, i); exit(0); }'
status: 0
stdout:
20 10

