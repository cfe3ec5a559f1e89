# A USDT provider glob over every process (-Z) holds the processes dtrace's
# own system() starts (here through a shell) whenever they load objects,
# until their probes are attached, even while the consumer waits for the
# command: a library loaded and called at once fires every time, and a
# probe in it can end tracing.
sh: d=$(mktemp -d) && cd "$d" && . "$S/late_build.sh" && "$DTRACE" -wqZ -n 'BEGIN { system("./late_main 0 0 2> /dev/null; true"); }' -n 'late*:::fire { printf("%s %d %d\n", probefunc, arg0, arg1); }' -n 'late*:::fire /arg0 == 5/ { exit(0); }' -n 'tick-10s { exit(1); }'; s=$?; cd /; rm -rf "$d"; exit $s
status: 0
stdout:
work 1 10
work 2 20
work 3 30
work 4 40
work 5 50

