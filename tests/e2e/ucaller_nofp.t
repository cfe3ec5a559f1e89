# ucaller at a pid entry probe is the caller, also in code built without
# frame pointers (it is the return address at the stack pointer, not the
# kernel's frame-pointer walk, which loses the caller there).
sh: d=$(mktemp -d) && cc -O2 -fomit-frame-pointer -o "$d/chain" "$S/ustack_chain.c" && "$DTRACE" -q -n 'pid$target:a.out:c:entry,pid$target:a.out:b:entry { @[probefunc, ufunc(ucaller)] = count(); } END { printa("%s %A %@d\n", @); }' -c "$d/chain"; rm -rf "$d"
status: 0
stdout:
b chain`a 1
c chain`b 1

