# Structs are associative-array keys by their bytes: two struct variables with equal members name the same element, a different one another.
args: -qn 'struct pt { int x; char c; }; struct pt a, b, d; BEGIN { a.x = 1; a.c = 65; b.x = 1; b.c = 65; d.x = 2; m[a] = 10; m[b] += 5; m[d] = 7; printf("%d %d\n", m[a], m[d]); exit(0); }'
status: 0
stdout:
15 7

