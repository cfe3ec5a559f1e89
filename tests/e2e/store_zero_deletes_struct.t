# Storing 0 into a struct- or union-valued dynamic variable deletes it: the
# element or thread-local then reads as zero-filled, the others keep their values.
args: -qn 'struct s { int a; }; this struct s val; self struct s t; union u { int i; char c; }; this union u un; BEGIN { this->val.a = 1; a[1] = this->val; this->val.a = 2; a[2] = this->val; a[1] = 0; self->t.a = 5; self->t = 0; this->un.i = 7; v[1] = this->un; v[2] = this->un; v[1] = 0; printf("%d %d %d %d %d\n", a[1].a, a[2].a, self->t.a, v[1].i, v[2].i); exit(0); } ERROR { exit(1); }'
status: 0
stdout:
0 2 0 0 7

