# Member stores that create struct elements in a full dynamic-variable space are
# dropped and counted (a drop ends the clause, as in DTrace); the stores before
# it still count every call.
# dtrace(1) reports new drops each time it finds them, so a run may print
# several report lines; each must have this form (counts replaced by N).
sh: { "$DTRACE" -x dynvarsize=1k -qn 'struct c { long n; long last; }; struct c a[uint64_t]; syscall::getppid:entry /pid == $target/ { a[0].n++; a[timestamp].n++; }' -n 'END { printf("%d\n", a[0].n); }' -c "$T/getppid_loop 2000" 2>&1 1>&3 | sed -E 's/^dtrace: [0-9]+ dynamic variable drops$/dtrace: N dynamic variable drops/' | sort -u; } 3>&1
status: 0
stdout:
2000

dtrace: N dynamic variable drops
