# A for loop (an extension to D) sums 1..10.
args: -qn 'BEGIN { for (i = 1; i <= 10; i++) s += i; printf("%d\n", s); exit(0); }'
status: 0
stdout:
55

