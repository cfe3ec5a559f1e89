# alloca() hands out cleared memory: what an earlier clause left in the scratch
# space is not visible to the next one.
args: -qn 'BEGIN { p = (long *)alloca(16); p[0] = 11; p[1] = 22; printf("%d %d\n", p[0], p[1]); } BEGIN { q = (long *)alloca(16); printf("%d %d\n", q[0], q[1]); exit(0); }'
status: 0
stdout:
11 22
0 0

