# A USDT provider glob (-Z, matching nothing yet) picks up the probes of a
# process that starts after tracing did and of the library it loads later.
# (Such a process is not held while its probes are attached: the calls are
# 300 ms apart, so that none fires before. It is started by BEGIN, once
# tracing runs.)
sh: d=$(mktemp -d) && cd "$d" && . "$S/late_build.sh" && { "$DTRACE" -wZq -n 'BEGIN { system("./late_main 100 300 2> out &"); }' -n 'late*:::fire { @[probefunc, arg0] = count(); n++; }' -n 'late*:::fire /n == 5/ { exit(0); }' -n 'tick-20s { exit(1); }'; s=$?; sleep 0.5; cat out; cd /; rm -rf "$d"; exit $s; }
status: 0
stdout:

  work                                                              1                1
  work                                                              2                1
  work                                                              3                1
  work                                                              4                1
  work                                                              5                1
sum 30
