# SIGTERM ends tracing like SIGINT: END fires, aggregations print, exit status 0.
# The signal is sent once BEGIN has printed (dtrace(1) installs its handlers just before tracing starts; a signal during start-up kills it as the default action would).
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
sh: f=$(mktemp); "$DTRACE" -qn 'BEGIN { printf("ready\n"); } tick-10ms { @ = count(); } END { printf("end\n"); }' >"$f" & p=$!; n=0; until grep -q ready "$f" || [ $n -ge 600 ]; do sleep 0.05; n=$((n+1)); done; sleep 0.2; kill -TERM $p; wait $p; s=$?; tail -n +2 "$f"; rm -f "$f"; exit $s
status: 0
stdout-re:

end

 +[0-9]+
