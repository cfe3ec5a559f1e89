# SIGINT stops tracing cleanly: a newline ends the ^C line, END fires and aggregations print.
sh: "$DTRACE" -qn 'tick-10ms { @ = count(); } END { printf("end\n"); }' & sleep 1; kill -INT $!; wait $!
status: 0
stdout-re:

end


 +[0-9]+
