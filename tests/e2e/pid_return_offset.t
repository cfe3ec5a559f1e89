# A pid return probe's arg0 is the offset in the function of the instruction
# it returned by, arg1 the return value (Dynamic Tracing Guide, pid provider,
# return probes); a tail call (a jmp out of the function) counts as its return.
sh: d=$(mktemp -d) && cc -O1 -o "$d/rets" "$S/return_sites.c" && "$DTRACE" -q -n 'pid$target:a.out:pick:return, pid$target:a.out:tail:return { printf("%s 0x%x %d\n", probefunc, arg0, arg1); }' -c "$d/rets"; s=$?; rm -rf "$d"; exit $s
status: 0
stdout:
pick 0xb 10
pick 0x10 8
pick 0xb 10
tail 0x4 10

