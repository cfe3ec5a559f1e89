# ustack() of a program built with -O2 -fomit-frame-pointer is complete: the
# consumer unwinds the copied user stack with the objects' .eh_frame CFI
# (a frame-pointer walk stops after the first frame here). The chain
# main -> a -> b -> c ends in getppid; offsets are dropped before comparing.
sh: d=$(mktemp -d) && cc -O2 -fomit-frame-pointer -o "$d/chain" "$S/ustack_chain.c" && "$DTRACE" -q -n 'syscall::getppid:entry /pid == $target/ { ustack(); exit(0); }' -c "$d/chain" | sed -E 's/\+0x[0-9a-f]+$//' | grep -E '`(a|b|c|main)$'; rm -rf "$d"
status: 0
stdout:
              chain`c
              chain`b
              chain`a
              chain`main
