# -l lists matching probes in dtrace's columns.
args: -l -n 'syscall::getppid:'
status: 0
stdout-re:
   ID   PROVIDER            MODULE                          FUNCTION NAME
 *[0-9]+    syscall           vmlinux                           getppid entry
 *[0-9]+    syscall           vmlinux                           getppid return
