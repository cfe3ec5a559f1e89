# A backquoted kernel symbol reads at its kallsyms address; & gives the address.
sh: a=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms); exec "$DTRACE" -qn "BEGIN { printf(\"%d %d\\n\", (unsigned long)&\`_stext == 0x$a, (unsigned long)&vmlinux\`_stext == 0x$a); exit(0); }"
status: 0
stdout:
1 1

