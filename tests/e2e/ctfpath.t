# -x ctfpath names the file kernel types are read from (BTF here); a file
# that cannot be used is said once, and the kernel's own types are used.
sh: "$DTRACE" -x ctfpath=/dev/null -qn 'BEGIN { printf("%d\n", sizeof (struct task_struct) > 0); exit(0); }' && "$DTRACE" -x ctfpath=/sys/kernel/btf/vmlinux -qn 'BEGIN { printf("%d\n", offsetof(struct task_struct, pid) > 0); exit(0); }'
status: 0
stdout:
1

1

stderr:
dtrace: Cannot open CTF archive /dev/null: BTF truncated: header at byte 0; using the kernel's BTF instead
