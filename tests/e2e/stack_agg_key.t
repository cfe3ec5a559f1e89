# Stacks as aggregation keys: each key's frames on lines of their own, the
# value on the next line; stackframes limits the frames recorded.
args: -qx stackframes=2 -n 'syscall::getppid:entry /pid == $target/ { @[stack()] = count(); }' -c "$T/getppid_loop 5"
status: 0
stdout-re:


              vmlinux`[a-z_0-9]+\+0x[0-9a-f]+
              vmlinux`do_syscall_64\+0x[0-9a-f]+
                5
