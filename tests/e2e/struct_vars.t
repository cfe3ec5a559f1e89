# Struct-typed global and clause-local variables: whole assignment from a translation, a kernel object (*curthread->mm) or *curpsinfo; member reads; print() in DTrace 2.x's layout.
sh: $DTRACE -qs $S/struct_vars.d
status: 0
stdout:
21 42 5 10 1
                                            (struct point) {
                                             .x = (int)21,
                                             .y = (int)42,
                                            }
dtrace 1

