# Without privileges, one line says why and dtrace exits 1; listing needs no privileges.
sh: su -s /bin/sh nobody -c "$DTRACE -n 'BEGIN { exit(0); }'"; echo "status $?"; su -s /bin/sh nobody -c "$DTRACE -l -n 'syscall::getppid:entry'"
status: 0
stdout:
status 1
   ID   PROVIDER            MODULE                          FUNCTION NAME
  224    syscall           vmlinux                           getppid entry
stderr:
dtrace: failed to initialize dtrace: DTrace requires additional privileges
