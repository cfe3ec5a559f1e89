# A full aggregation map drops updates and says so (aggsize bounds the aggregation's entries).
# dtrace(1) reports new drops each time it finds them, so a run may print
# several report lines; each must have this form (counts replaced by N).
# (The aggregation printed at exit is not checked here.)
sh: { "$DTRACE" -x aggsize=1k -qn 'syscall::getppid:entry /pid == $target/ { @[timestamp] = count(); }' -c "$T/getppid_loop 2000" 2>&1 >/dev/null | sed -E 's/^dtrace: [0-9]+ aggregation drops on CPU [0-9]+$/dtrace: N aggregation drops on CPU C/' | sort -u; }
status: 0
stdout:
dtrace: N aggregation drops on CPU C
