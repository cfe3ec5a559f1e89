# syscall:::entry matches every system call; probefunc names it.
args: -qn 'syscall:::entry /pid == $target/ { @[probefunc] = count(); }' -c "$T/getppid_loop 20"
status: 0
stdout-has:
  getppid                                                          20
