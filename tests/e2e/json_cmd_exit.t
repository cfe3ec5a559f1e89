# With -c, the JSON document is closed when the command exits: its getppid() calls counted, a drop-free run, one value.
args: -O json -n 'syscall::getppid:entry /pid == $target/ { @calls = count(); }' -c "$T/getppid_loop 25" 2>/dev/null | python3 "$S/jsoncheck.py" doc
status: 0
stdout:
dtrace:::END [{"aggregation-name":"calls","aggregation-data":[{"keys":[],"count":25}]}]
valid
