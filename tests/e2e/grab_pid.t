# -p grabs a running process: $target is its pid, and tracing stops when it exits.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
sh: sleep 0.7 & p=$!; "$DTRACE" -n 'syscall:::entry /pid == $target/ { @[execname] = count(); } END { printf("end %d\n", $target == '"$p"'); }' -p $p
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+ +2 +:END end 1


  sleep +[0-9]+
stderr-re:
dtrace: description 'syscall:::entry ' matched [0-9]+ probes
dtrace: pid [0-9]+ has exited
