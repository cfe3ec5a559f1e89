# plockstat -V prints the D program it runs between two marker lines on
# stderr: pid-provider probes on glibc's lock functions, END clauses that
# trace each section's title and printa() its aggregations.
sh: "$PLOCKSTAT" -V -H true 2>&1 >/dev/null | grep -E '^(plockstat: [v^]|pid.*pthread_mutex_unlock:entry|END|	trace|	printa)' | LC_ALL=C sort | uniq -c
status: 0
stdout:
      1 	printa(@mtx_hold, @mtx_hold_count);
      1 	printa(@rw_r_hold, @rw_r_hold_count);
      1 	printa(@rw_w_hold, @rw_w_hold_count);
      1 	trace("Mutex hold");
      1 	trace("R/W reader hold");
      1 	trace("R/W writer hold");
      3 END
      1 pid$target:libc.so.6:pthread_mutex_unlock:entry
      1 plockstat: ^^^^ D program ^^^^
      1 plockstat: vvvv D program vvvv
