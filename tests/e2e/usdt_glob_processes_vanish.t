# Processes a USDT provider glob matches may exit while dtrace starts or
# attaches their probes: such a process is dropped without a word, and
# tracing goes on (here: until the tick), catching the later ones (each
# calls its library's probe five times, 10 ms apart).
sh: d=$(mktemp -d) && cd "$d" && . "$S/late_build.sh" && { for i in $(seq 150); do ./late_main 0 10 2> /dev/null; done & l=$!; sleep 0.2; "$DTRACE" -Zq -n 'late*:::fire { n++; }' -n 'tick-2s { printf("%s\n", n > 0 ? "fired" : "none"); exit(0); }'; s=$?; kill $l; wait $l 2> /dev/null; cd /; rm -rf "$d"; exit $s; }
status: 0
stdout:
fired

stderr:
