# User stacks and symbols as aggregation keys, printed after the traced
# process has exited: its address space was read while it lived and is
# kept, so the frames still have names. Keys of one function merge. (The
# space is read in the loop, at switchrate, while the process lives.)
# Keys hold the kernel's frame-pointer frames: libc's syscall() keeps no
# frame, so the walk goes from it to c's caller (b), and ucaller is b.
sh: d=$(mktemp -d) && cc -O0 -fno-omit-frame-pointer -o "$d/fp" "$S/ustack_chain.c" && "$DTRACE" -q -x switchrate=50hz -n 'syscall::getppid:entry /pid == $target/ { @s[ustack()] = count(); @f[ufunc(ucaller)] = count(); @m[umod(ucaller)] = count(); @u[usym(ucaller)] = count(); }' -c "$d/fp" | sed -E 's/\+0x[0-9a-f]+$//; s/ +$//' | grep -E '`|fp|[0-9]$' | grep -v libc; rm -rf "$d"
status: 0
stdout:
              fp`b
              fp`a
              fp`main
                3
  fp`b                                                              3
  fp                                                                3
  fp`b                                                              3
