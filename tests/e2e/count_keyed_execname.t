# A string-keyed count: two spaces, key left-aligned in 50 columns, value right-aligned in 16.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
args: -qn 'syscall::getppid:entry /pid == $target/ { @[execname] = count(); }' -c "$T/getppid_loop 500"
status: 0
stdout:

  getppid_loop                                                    500
