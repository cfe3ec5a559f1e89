# dynvarsize counts bytes as DTrace does: 15 bytes hold one 8-byte thread-local;
# the second store is a dynamic-variable drop that ends the clause (so the
# third and fourth stores never run and are not counted).
args: -x droptags -qn 'BEGIN { self->a = 1; self->b = 2; self->c = 3; self->d = 4; } BEGIN { printf("%d %d\n", self->a, self->b); exit(0); }' -x dynvarsize=15
status: 0
stdout:
1 0

stderr:
dtrace: [DTRACEDROP_DYNAMIC] 1 dynamic variable drop
