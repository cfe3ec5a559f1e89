# Probes in a library loaded after tracing started (dlopen) are enabled when
# it is loaded (-Z: their descriptions matched nothing at first): its USDT
# probe with both arguments, and pid entry and return probes, each firing
# once per call, before the library's code runs. The program's own result
# is unchanged by the probes.
sh: d=$(mktemp -d) && cd "$d" && . "$S/late_build.sh" && "$DTRACE" -Zq -n 'late$target:::fire { printf("%s %s %s %d %d\n", probeprov == strjoin("late", lltostr(pid)) ? "late$pid" : probeprov, probemod, probefunc, arg0, arg1); }' -n 'pid$target:liblate.so:work:entry { printf("entry %d\n", arg0); }' -n 'pid$target:liblate.so:work:return { printf("return %d\n", arg1); }' -c './late_main 300'; s=$?; cd /; rm -rf "$d"; exit $s
status: 0
stdout:
entry 1
late$pid liblate.so work 1 10
return 2
entry 2
late$pid liblate.so work 2 20
return 4
entry 3
late$pid liblate.so work 3 30
return 6
entry 4
late$pid liblate.so work 4 40
return 8
entry 5
late$pid liblate.so work 5 50
return 10

stderr:
sum 30
