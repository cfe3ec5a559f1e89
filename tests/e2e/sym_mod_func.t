# sym(), func() and mod() print the kernel symbol (module`function) or the
# module covering an address: two spaces, then the name in 50 columns.
sh: a=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms); "$DTRACE" -qn "BEGIN { mod(0x$a); sym(0x$a); func(0x$a + 1); exit(0); }" | tr -s ' ' '\n' | grep .
status: 0
stdout-re:
vmlinux
vmlinux`_?[a-z_]+
vmlinux`_?[a-z_]+
