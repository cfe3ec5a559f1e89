# plockstat -e secs -p pid: grab a running process, stop after one second,
# print what was seen (-v says when tracing starts, on stdout).
sh: "$T/lock_contend" 100000 & p=$!; sleep 0.5; "$PLOCKSTAT" -v -e 1 -p $p; s=$?; kill $p; exit $s
status: 0
stdout-re:
plockstat: tracing enabled for pid \d+

Mutex block

Count     nsec Lock                         Caller
-{79}
 +\d+ [ \d]{8} lock_contend`biglock         lock_contend`take\+0x[0-9a-f]+
