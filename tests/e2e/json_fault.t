# A fault is an object for the faulting probe with an "error" object (fault code, address as a string, action, offset); the document stays one value.
sh: "$DTRACE" -O json -n 'BEGIN { trace(*(int *)8); } BEGIN { exit(0); }' 2>/dev/null | python3 "$S/jsoncheck.py" doc | sed 's/"offset":[0-9]*/"offset":N/'
status: 0
stdout:
dtrace:::BEGIN {"error":{"action":1,"addr":"0x8","epid":1,"fault":1,"msg":"invalid address (0x8)","offset":N}}
dtrace:::BEGIN []
valid
