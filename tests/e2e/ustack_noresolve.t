# -x noresolve prints user frames as module:0xoffset (the offset in the
# mapping that holds the address), never as symbols.
sh: d=$(mktemp -d) && cc -O2 -fomit-frame-pointer -o "$d/chain" "$S/ustack_chain.c" && "$DTRACE" -q -x noresolve -n 'syscall::getppid:entry /pid == $target/ { ustack(); exit(0); }' -c "$d/chain" | grep -cE '^ {14}(chain|libc\.so\.6):0x[0-9a-f]+$'; "$DTRACE" -q -x noresolve -n 'syscall::getppid:entry /pid == $target/ { ustack(); exit(0); }' -c "$d/chain" | grep -c '`'; rm -rf "$d"
status: 0
stdout:
8
0
