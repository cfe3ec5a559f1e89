# A JSON document stays valid when dtrace is stopped by SIGINT: the aggregations nothing printed, then the document's end (a clause that only aggregates records no firing).
sh: f=$(mktemp); "$DTRACE" -O json -n 'tick-10ms { @n = count(); }' > "$f" 2>/dev/null & p=$!; sleep 1; kill -INT $p; wait $p; echo "status $?"; python3 "$S/jsoncheck.py" doc < "$f" | tail -2 | sed 's/"count":[0-9]*/"count":N/'; rm -f "$f"
status: 0
stdout:
status 0
dtrace:::END [{"aggregation-name":"n","aggregation-data":[{"keys":[],"count":N}]}]
valid
