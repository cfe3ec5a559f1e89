# Module names as DTrace takes them: libc, libc.so (the base name without its
# suffixes) and a glob over getp* name the same functions as libc.so.6.
args: -q -n 'pid$target:libc:getpid:entry, pid$target:libc.so:getppid:entry { @[probemod, probefunc] = count(); }' -c "$T/pid_calls 4"
status: 0
stdout:

  libc.so.6                                           getpid                                                            4
  libc.so.6                                           getppid                                                           4
