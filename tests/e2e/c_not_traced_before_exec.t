# A -c command is created stopped: nothing it does before its execve (as a
# copy of dtrace) is traced; its system calls are seen under its own name.
args: -q -n 'syscall:::entry /pid == $target/ { @[execname] = count(); }' -c "$T/getppid_loop 10"
status: 0
stdout-re:

  getppid_loop +[0-9]+
