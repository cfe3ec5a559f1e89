# SIGINT stops tracing cleanly: a newline ends the ^C line, END fires and aggregations print.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
sh: "$DTRACE" -qn 'tick-10ms { @ = count(); } END { printf("end\n"); }' & sleep 1; kill -INT $!; wait $!
status: 0
stdout-re:

end

 +[0-9]+
