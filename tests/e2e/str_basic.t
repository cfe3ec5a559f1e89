# strlen, strjoin, toupper and tolower, nested (Dynamic Tracing Guide, "Subroutines").
sh: $DTRACE -s $S/str_basic.d
status: 0
stdout:
11 0 5
[foobar] [hello world] []
[MIXED CASE 42!] [mixed case 42!]
[Abc]

