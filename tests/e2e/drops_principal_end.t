# END runs on one CPU while dtrace waits: its records get one CPU's buffer
# (bufsize), counted as DTrace counts them (a traced string takes strsize
# bytes). Four 1 KiB strings fit in 4 KiB less the record headers: three do.
args: -x droptags -x strsize=1k -x bufsize=4k -qn 'BEGIN { exit(0); } END { trace("a"); } END { trace("b"); } END { trace("c"); } END { trace("d"); }'
status: 0
stdout:
abc
stderr-re:
dtrace: \[DTRACEDROP_PRINCIPAL\] 1 drop on CPU [0-9]+
