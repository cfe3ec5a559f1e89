# dynvarsize counts bytes as DTrace does: 15 bytes hold three 4-byte thread-local structs (15 / 4), and storing 0 frees one for the next.
args: -qx dynvarsize=15 -n 'this struct { int a; } v; BEGIN { this->v.a = 1; self->a = this->v; this->v.a = 2; self->b = this->v; this->v.a = 3; self->c = this->v; self->a = 0; this->v.a = 4; self->d = this->v; printf("%d %d %d\n", self->b.a, self->c.a, self->d.a); exit(0); }'
status: 0
stdout:
2 3 4

