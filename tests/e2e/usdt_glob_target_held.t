# A USDT provider glob over every process (-Z: nothing matches at first)
# holds dtrace's own -c process when it loads a library with probes, until
# they are attached: a library loaded and called at once, with no pause,
# fires every time.
sh: d=$(mktemp -d) && cd "$d" && . "$S/late_build.sh" && "$DTRACE" -Zq -n 'late*:::fire { printf("%s %d %d\n", probefunc, arg0, arg1); }' -c './late_main 0 0'; s=$?; cd /; rm -rf "$d"; exit $s
status: 0
stdout:
work 1 10
work 2 20
work 3 30
work 4 40
work 5 50

stderr:
sum 30
