# dynvarsize counts bytes as DTrace does (each variable its own size, not
# rounded): 15 bytes hold three 4-byte int thread-locals; the fourth store is a
# dynamic-variable drop that ends the clause.
args: -x droptags -qn 'BEGIN { self->a = 1; self->b = 2; self->c = 3; self->d = 4; } BEGIN { printf("%d %d\n", self->a, self->b); exit(0); }' -x dynvarsize=15
status: 0
stdout:
1 2

stderr:
dtrace: [DTRACEDROP_DYNAMIC] 1 dynamic variable drop
