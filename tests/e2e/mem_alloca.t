# alloca() memory can be cast, stored through and read back (scalars, array
# elements, struct members); pieces are 8-byte aligned; alloca(0) is the current
# top; each clause starts with empty scratch space (the same address again);
# bcopy copies kernel memory (here a string) into it.
sh: printf '%s\n' 'struct pair { int a; char b; int c; };' 'BEGIN { this->p = (int *)alloca(sizeof (int)); *this->p = 41; *this->p += 1; printf("%d\n", *this->p); a = alloca(1); b = alloca(1); printf("%d %d\n", (long)b - (long)a, alloca(0) == alloca(0)); s = (struct pair *)alloca(sizeof (struct pair)); s->c = 7; s->a = s->c * 2; printf("%d %d\n", s->a, s->c); arr = (short *)alloca(4 * sizeof (short)); arr[3] = -5; arr[0] = arr[3] - 1; printf("%d %d\n", arr[0], arr[3]); first = (long)this->p; } BEGIN { printf("%d\n", (long)alloca(1) == first); d = (char *)alloca(8); bcopy("abcdefg", d, 8); bcopy("XY", d + 2, 2); printf("%s\n", stringof(d)); exit(0); }' | $DTRACE -qs /dev/stdin
status: 0
stdout:
42
8 1
14 7
-6 -5
1
abXYefg

