# print() of a pointer to a struct: the address, then the object as DTrace 2.x lays it out (column 44, one column per level, `(type)value,` members, anonymous struct/union as `(struct)`/`(union)`, char arrays to their NUL, all-zero members left out), and the printsize option cutting it short with `...`.
args: -qn 'enum colour { RED = 1, GREEN = 2 }; struct pt { int x; char tag[6]; union { unsigned char lo; uint64_t all; } u; struct { void *p; long n; } in; short never; enum colour c; }; BEGIN { s = (struct pt *)alloca(sizeof (struct pt)); s->x = -3; s->tag[0] = 111; s->tag[1] = 107; s->u.all = 258; s->in.n = 42; s->c = GREEN; print(s); setopt("printsize", "16"); print(s); exit(0); }'
status: 0
stdout-re:
0x[0-9a-f]+ = \*
                                            \(struct pt\) \{
                                             \.x = \(int\)-3,
                                             \.tag = \(char \[6\]\) \[
                                              \(char\)'o',
                                              \(char\)'k',
                                             \],
                                             \.u = \(union\) \{
                                              \.lo = \(unsigned char\)2,
                                              \.all = \(uint64_t\)258,
                                             \},
                                             \.in = \(struct\) \{
                                              \.n = \(long\)42,
                                             \},
                                             \.c = \(enum colour\)GREEN,
                                            \}
0x[0-9a-f]+ = \*
                                            \(struct pt\) \{
                                             \.x = \(int\)-3,
                                             \.tag = \(char \[6\]\) \[
                                              \(char\)'o',
                                              \(char\)'k',
                                             \],
                                             \.\.\.
                                            \}

