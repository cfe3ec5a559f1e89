# dynvarsize is cut as DTrace cuts it: each int thread-local takes an 80-byte
# chunk (a 56-byte header, the second key, the int, rounded to 8) and each
# chunk a 64-byte hash bucket, the buckets an even number: 432 bytes hold
# three; the fourth store is a dynamic-variable drop that ends the clause.
args: -x droptags -qn 'BEGIN { self->a = 1; self->b = 2; self->c = 3; self->d = 4; } BEGIN { printf("%d %d\n", self->a, self->b); exit(0); }' -x dynvarsize=432
status: 0
stdout:
1 2

stderr:
dtrace: [DTRACEDROP_DYNAMIC] 1 dynamic variable drop
