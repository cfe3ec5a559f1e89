# A provider glob without a process ID (`loopy*:::tick`) names the USDT
# provider `loopy<PID>` of every process that has it, here one started in the
# background before dtrace.
sh: d=$(mktemp -d) && cc -O1 -o "$d/loopy" "$S/usdt_loop.c" && { "$d/loopy" & p=$!; sleep 0.3; "$DTRACE" -q -n 'loopy*:::tick /pid == $1/ { printf("%s\n", probeprov == strjoin("loopy", lltostr(pid)) ? "ok" : probeprov); exit(0); }' $p; s=$?; kill $p; rm -rf "$d"; exit $s; }
status: 0
stdout:
ok

