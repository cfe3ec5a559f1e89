# Thread-local associative arrays (declared or implicit), ++/--/op= on array
# elements, and self->/this-> variables that read as 0 before any assignment.
args: -qn 'self int x[int, int]; self int y; BEGIN /self->last == 0/ { self->last = 1; old = self->a["a"] = 42; val = self->a["a"]++; self->a["b"] += 5; self->x[self->y, 1] = 123; r = self->x[self->y, 1]++; g[1]++; g[1] *= 6; --g[2]; printf("%d %d %d %d %d %d %d %d %d %d\n", old, val, self->a["a"], self->a["b"], self->a["none"], r, self->x[0, 1], g[1], g[2], this->unset); exit(0); }'
status: 0
stdout:
42 42 43 5 0 123 124 6 -1 0

