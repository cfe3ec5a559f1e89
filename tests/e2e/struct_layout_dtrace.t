# D structs are laid out as DTrace lays them out: nothing pads the end of a
# struct, and each bit-field takes bytes of its own (its width rounded up to 1,
# 2, 4 or 8 bytes); bit-fields still hold their values.
args: -qn 'struct a { int u; long v; short w; }; struct b { int x : 1; int y : 3; }; struct c { int p : 20; int q : 3; int r : 12; } v; BEGIN { v.r = 2047; v.p = -1; v.q = 2; printf("%d %d %d %d %d %d %d\n", sizeof (struct a), offsetof(struct a, w), sizeof (struct b), sizeof (struct c), v.r, v.p, v.q); exit(0); }'
status: 0
stdout:
18 16 2 6 2047 -1 2

