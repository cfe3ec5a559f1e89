# Bit-fields of structs held in D variables are assignable: a store keeps only
# the field's width (C's truncation; a 1-bit signed field holds 0 or -1) and
# leaves the neighbouring fields alone; ++ and += work on them too.
args: -qn 'struct r { int a : 1; int b : 15; int c : 31; } var; struct s { unsigned x : 3; unsigned y : 5; }; this struct s t; BEGIN { var.a = 256; var.b = 65536; var.c = 4294967296; printf("%d %d %d\n", var.a, var.b, var.c); var.a = 1; var.b = 5; var.c = -3; var.b++; var.b += 10; printf("%d %d %d\n", var.a, var.b, var.c); this->t.x = 9; this->t.y = 31; a[1] = this->t; a[1].x = 2; printf("%d %d %d %d\n", this->t.x, this->t.y, a[1].x, a[1].y); exit(0); }'
status: 0
stdout:
0 0 0
-1 16 -3
1 31 2 31

