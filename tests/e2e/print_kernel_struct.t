# print() of a kernel struct value: the BTF type printed member by member in DTrace 2.x's layout (anonymous members as `(struct) {` without a name).
args: -qn 'BEGIN { print(*curthread->mm); print(curthread->comm); exit(0); }'
status: 0
stdout-has:
                                            (struct mm_struct) {
                                             (struct) {
"dtrace"
