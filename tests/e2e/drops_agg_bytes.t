# aggsize counts bytes as DTrace does: each string key a whole strsize string,
# so 1 KiB with 512-byte strings holds one key; the other keys are drops.
args: -x droptags -x strsize=512 -x aggsize=1k -qn 'BEGIN { @["one"] = count(); @["two"] = count(); @["three"] = count(); exit(0); }'
status: 0
stdout:

  one                                                               1
stderr-re:
dtrace: \[DTRACEDROP_AGGREGATION\] 2 aggregation drops on CPU [0-9]+
