# Member stores that create struct elements in a full dynamic-variable space are
# dropped and counted (a drop ends the clause, as in DTrace); the stores before
# it still count every call.
args: -x dynvarsize=1k -qn 'struct c { long n; long last; }; struct c a[uint64_t]; syscall::getppid:entry /pid == $target/ { a[0].n++; a[timestamp].n++; }' -n 'END { printf("%d\n", a[0].n); }' -c "$T/getppid_loop 2000"
status: 0
stdout:
2000

stderr-re:
dtrace: [0-9]+ dynamic variable drops
