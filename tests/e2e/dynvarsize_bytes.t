# dynvarsize is cut as DTrace cuts it: 432 bytes hold three thread-local structs of one int (80-byte chunks, two 64-byte hash buckets), and storing 0 frees one for the next.
args: -qx dynvarsize=432 -n 'this struct { int a; } v; BEGIN { this->v.a = 1; self->a = this->v; this->v.a = 2; self->b = this->v; this->v.a = 3; self->c = this->v; self->a = 0; this->v.a = 4; self->d = this->v; printf("%d %d %d\n", self->b.a, self->c.a, self->d.a); exit(0); }'
status: 0
stdout:
2 3 4

