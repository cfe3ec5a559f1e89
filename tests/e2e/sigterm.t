# SIGTERM ends tracing like SIGINT: END fires, aggregations print, exit status 0.
sh: "$DTRACE" -qn 'tick-10ms { @ = count(); } END { printf("end\n"); }' & sleep 0.6; kill -TERM $!; wait $!
status: 0
stdout-re:

end


 +[0-9]+
