# The Solaris Dynamic Tracing Guide's "syscall Provider" example,
# `dtrace -n syscall:::entry'/pid == 31337/{ @syscalls[probefunc] = count(); }'`:
# no heading (no record was traced), one blank line, then each row: two spaces,
# the key left-aligned in 50 columns, a space, the count right-aligned in 16.
args: -n 'syscall::getppid:entry /pid == $target/ { @syscalls[probefunc] = count(); }' -c "$T/getppid_loop 3"
status: 0
stdout:

  getppid                                                           3
stderr-re:
dtrace: description 'syscall::getppid:entry ' matched 1 probe
dtrace: pid [0-9]+ (has exited|exited with status 0)
