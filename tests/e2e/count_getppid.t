# count() equals the number of calls made; unkeyed value is printed as %16d after a space.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
args: -qn 'syscall::getppid:entry /pid == $target/ { @ = count(); }' -c "$T/getppid_loop 1000"
status: 0
stdout:

             1000
