# Stacks as aggregation keys: each key's frames on lines of their own, the
# value (5 calls of one stack) on the line after them; stackframes limits the
# frames recorded.
sh: "$DTRACE" -qx stackframes=4 -n 'syscall::getppid:entry /pid == $target/ { @[stack()] = count(); }' -c "$T/getppid_loop 5" | grep -E '^ {14}vmlinux`do_syscall_64\+0x[0-9a-f]+$|^ +5$'
status: 0
stdout-re:
              vmlinux`do_syscall_64\+0x[0-9a-f]+
                5
