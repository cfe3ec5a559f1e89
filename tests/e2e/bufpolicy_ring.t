# bufpolicy=ring: each CPU's buffer keeps only its most recent records, and
# they are printed when tracing ends, oldest first (Dynamic Tracing Guide,
# "ring Policy"). 1000 firings on CPU 0 into a 4k buffer: what is printed is
# an unbroken run ending with the last firing, one buffer's worth (records
# of 16 to 64 bytes), and nothing is dropped.
sh: "$DTRACE" -x bufpolicy=ring -b 4k -qn 'syscall::getppid:entry /pid == $target/ { printf("%d\n", i++); }' -c "taskset -c 0 $T/getppid_loop 1000" 2>&1 | awk '/^[0-9]+$/ { n++; if (n > 1 && $1 != prev + 1) gap = 1; prev = $1; next } NF { other++ } END { print (n >= 4096 / 64 && n <= 4096 / 16) ? "one buffer" : "kept " n; print "last " prev; print gap ? "gap" : "in order"; print other + 0, "other lines" }'
status: 0
stdout:
one buffer
last 999
in order
0 other lines
