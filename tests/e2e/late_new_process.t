# A USDT provider glob (-Z, matching nothing yet) picks up the probes of a
# process that starts after tracing did and of the library it loads later.
sh: d=$(mktemp -d) && cd "$d" && . "$S/late_build.sh" && { (sleep 1; ./late_main 100 2> out) & "$DTRACE" -Zq -n 'late*:::fire { @[probefunc, arg0] = count(); n++; }' -n 'late*:::fire /n == 5/ { exit(0); }' -n 'tick-20s { exit(1); }'; s=$?; wait; cat out; cd /; rm -rf "$d"; exit $s; }
status: 0
stdout:

  work                                                              1                1
  work                                                              2                1
  work                                                              3                1
  work                                                              4                1
  work                                                              5                1
sum 30
