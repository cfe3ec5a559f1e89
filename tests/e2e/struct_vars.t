# Struct-typed global and clause-local variables: whole assignment from a translation, a kernel object (*curthread->mm) or *curpsinfo; member reads; print().
sh: $DTRACE -qs $S/struct_vars.d
status: 0
stdout:
21 42 5 10 1
struct point {
    x = 0x15
    y = 0x2a
}
dtrace 1

