# A string-keyed count: two spaces, key left-aligned in 50 columns, value right-aligned in 16.
args: -qn 'syscall::getppid:entry /pid == $target/ { @[execname] = count(); }' -c "$T/getppid_loop 500"
status: 0
stdout:


  getppid_loop                                                    500
