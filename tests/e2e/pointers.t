# Pointer arithmetic scales by the element size; arrays index and decay; casts.
args: -qn 'BEGIN { p = &curthread->comm[0]; q = (int *)curthread; printf("%c%c %d %d %d %d\n", *p, p[1], (p + 3) - p, (long)(q + 2) - (long)q, (long)&curthread->comm[2] - (long)curthread->comm, curthread != NULL); exit(0); }'
status: 0
stdout:
dt 3 8 2 1

