# User-space probes are numbered after every kernel probe (from 1048577),
# whichever kernel providers the same listing names, so a process's probes
# keep their IDs from one listing to the next; the kernel probe keeps its own.
sh: $DTRACE -l -n 'trig$target:::twice' -n 'syscall::read:entry' -c "$T/usdt_probes" | sed -E 's/ +trig[0-9]+ +/ trigN /'; $DTRACE -l -n 'trig$target:::' -c "$T/usdt_probes" | sed -E 's/ +trig[0-9]+ +/ trigN /'
status: 0
stdout:
   ID   PROVIDER            MODULE                          FUNCTION NAME
1048577 trigN usdt_probes                              main twice
    4    syscall           vmlinux                              read entry
   ID   PROVIDER            MODULE                          FUNCTION NAME
1048577 trigN usdt_probes                              step step
1048578 trigN usdt_probes                              step step-done
1048579 trigN usdt_probes                              main twice
