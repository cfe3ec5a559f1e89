# -64 (and the default) compile for LP64: long, pointers and size_t are 8 bytes.
args: -64 -qn 'struct s { char *p; long l; char c; }; BEGIN { printf("%d %d %d %d %d\n", sizeof (long), sizeof (char *), sizeof (size_t), sizeof (struct s), sizeof (4294967295)); exit(0); }'
status: 0
stdout:
8 8 8 17 8

