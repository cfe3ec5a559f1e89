# bufresize: a principal buffer that cannot be had at its size is lowered and
# dtrace says so (auto, the default), or tracing does not start (manual).
# 16g per CPU is beyond what the shared ring buffer may take.
sh: "$DTRACE" -b 16g -x bufresize=manual -qn 'BEGIN { trace(1); exit(0); }'; echo "status $?"; "$DTRACE" -b 16g -qn 'BEGIN { trace(1); exit(0); }'; echo "status $?"
status: 0
timeout: 60
stdout-re:
^status 1$
^1$
^status 0$
stderr-re:
^dtrace: could not enable tracing: cannot allocate principal buffers of 17179869184 bytes \(bufresize=manual\)$
^dtrace: buffer size lowered to [0-9]+[kmg]?$
