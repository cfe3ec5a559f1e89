# profile-N fires on every CPU.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
args: -qn 'profile-1000hz { @ = count(); } tick-300ms { exit(0); }'
status: 0
stdout-re:

 +[1-9][0-9]*
