# Associative arrays keyed by tuples, thread-locals and clause-locals; missing elements read 0.
args: -qn 'BEGIN { a["x", 1] = 5; a["y", 2] = 7; self->t = 3; this->u = 4; printf("%d %d %d %d %d\n", a["x", 1], a["y", 2], a["z", 3], self->t, this->u); exit(0); }'
status: 0
stdout:
5 7 0 3 4

