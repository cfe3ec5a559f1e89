# A full dynamic-variable space drops stores and says so.
# dtrace(1) reports new drops each time it finds them, so a run may print
# several report lines; each must have this form (counts replaced by N).
sh: { "$DTRACE" -x dynvarsize=1k -qn 'syscall::getppid:entry /pid == $target/ { a[timestamp] = 1; }' -c "$T/getppid_loop 2000" 2>&1 1>&3 | sed -E 's/^dtrace: [0-9]+ dynamic variable drops$/dtrace: N dynamic variable drops/' | sort -u; } 3>&1
status: 0
stdout:

dtrace: N dynamic variable drops
