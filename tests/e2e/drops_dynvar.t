# A full dynamic-variable space drops stores and says so.
args: -x dynvarsize=1k -qn 'syscall::getppid:entry /pid == $target/ { a[timestamp] = 1; }' -c "$T/getppid_loop 2000"
status: 0
stdout:

stderr-re:
dtrace: [0-9]+ dynamic variable drops
