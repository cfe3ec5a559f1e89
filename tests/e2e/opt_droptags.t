# -x droptags puts each drop's DTRACEDROP_* tag in its report.
args: -x droptags -x dynvarsize=1k -qn 'syscall::getppid:entry /pid == $target/ { a[timestamp] = 1; }' -c "$T/getppid_loop 2000"
status: 0
stdout:

stderr-re:
dtrace: \[DTRACEDROP_DYNAMIC\] [0-9]+ dynamic variable drops
