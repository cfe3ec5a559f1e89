# A JSON document stays valid when dtrace is stopped by SIGTERM; NDJSON lines are flushed one by one, each a JSON value.
sh: f=$(mktemp); g=$(mktemp); "$DTRACE" -O json -n 'tick-10ms { trace(1); }' > "$f" 2>/dev/null & p=$!; "$DTRACE" -x oformat=ndjson -n 'tick-10ms { trace(2); }' > "$g" 2>/dev/null & q=$!; sleep 1; python3 "$S/jsoncheck.py" ndjson < "$g" | sort -u | grep -v valid; kill -TERM $p $q; wait $p; wait $q; python3 "$S/jsoncheck.py" doc < "$f" | sort -u; rm -f "$f" "$g"
status: 0
stdout:
profile:::tick-10ms [{"value":2}]
profile:::tick-10ms [{"value":1}]
valid
