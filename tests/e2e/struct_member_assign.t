# A struct member of a D variable takes a whole struct of its type: the global,
# clause-local, thread-local or associative-array variable gets a copy.
args: -qn 'struct pt { int x, y; }; struct body { struct pt pos, vel; }; struct body B, C; this struct body b; self struct body s; struct body a[string]; BEGIN { B.vel.x = 3; B.vel.y = 4; this->b.vel.x = 5; this->b.vel.y = 6; C.vel = B.vel; C.pos = this->b.vel; this->b.pos = B.vel; self->s.vel = C.pos; a["k"].pos = B.vel; printf("%d %d %d %d %d %d %d %d %d\n", C.vel.x, C.vel.y, C.pos.x, C.pos.y, this->b.pos.y, self->s.vel.x, a["k"].pos.y, a["k"].vel.x, B.pos.x); exit(0); }'
status: 0
stdout:
3 4 5 6 4 5 4 0 0

