# print() of a kernel struct value: the BTF type printed member by member (anonymous members as bare braces).
args: -qn 'BEGIN { print(*curthread->mm); print(curthread->comm); exit(0); }'
status: 0
stdout-has:
struct mm_struct {
"dtrace"
