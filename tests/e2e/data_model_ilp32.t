# -32 compiles for the ILP32 data model: long, unsigned long, D's pointers and
# the typedefs over them (size_t, uintptr_t, ssize_t, ulong_t) are 4 bytes, and
# a D struct lays out its pointer and long members in 4 bytes each; long long
# stays 8 and kernel types keep their own sizes. A decimal constant past
# INT_MAX is then a long long. -64 (the default) keeps LP64.
args: -32 -qn 'struct s { char *p; long l; char c; }; BEGIN { printf("%d %d %d %d %d %d %d %d %d %d\n", sizeof (long), sizeof (unsigned long), sizeof (char *), sizeof (size_t), sizeof (uintptr_t), sizeof (ssize_t), sizeof (ulong_t), sizeof (long long), sizeof (struct s), sizeof (4294967295)); printf("%d %d\n", sizeof (curthread), offsetof(struct s, c)); exit(0); }'
status: 0
stdout:
4 4 4 4 4 4 4 8 9 8
8 8

