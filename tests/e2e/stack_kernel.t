# stack() prints kernel frames as module`function+0xoff, indented 14 columns,
# starting where the probe fired; caller is a kernel address shown with %a.
args: -qn 'syscall::getppid:entry /pid == $target/ { stack(); printf("depth %d caller %a\n", stackdepth, caller); exit(0); }' -c "$T/getppid_loop 1"
status: 0
stdout-re:

              vmlinux`[a-z_0-9]+\+0x[0-9a-f]+
              vmlinux`do_syscall_64\+0x[0-9a-f]+
              vmlinux`entry_SYSCALL_64[a-z_]*\+0x[0-9a-f]+
depth [34] caller vmlinux`[a-z_0-9]+\+0x[0-9a-f]+

