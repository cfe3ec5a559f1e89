# SIGTERM ends tracing like SIGINT: END fires, aggregations print, exit status 0.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
sh: "$DTRACE" -qn 'tick-10ms { @ = count(); } END { printf("end\n"); }' & sleep 0.6; kill -TERM $!; wait $!
status: 0
stdout-re:

end

 +[0-9]+
