# -x droptags puts each drop's DTRACEDROP_* tag in its report.
# dtrace(1) reports new drops each time it finds them, so a run may print
# several report lines; each must have this form (counts replaced by N).
sh: { "$DTRACE" -x droptags -x dynvarsize=1k -qn 'syscall::getppid:entry /pid == $target/ { a[timestamp] = 1; }' -c "$T/getppid_loop 2000" 2>&1 1>&3 | sed -E 's/^dtrace: \[DTRACEDROP_DYNAMIC\] [0-9]+ dynamic variable drops$/dtrace: [DTRACEDROP_DYNAMIC] N dynamic variable drops/' | sort -u; } 3>&1
status: 0
stdout:

dtrace: [DTRACEDROP_DYNAMIC] N dynamic variable drops
