# Module names as DTrace takes them: libc and libc.so (the base name without
# its suffixes) name libc.so.6; a function named through a weak alias
# (getpid) is shown by its preferred, global name (__getpid).
args: -q -n 'pid$target:libc:getpid:entry, pid$target:libc.so:getppid:entry { @[probemod, probefunc] = count(); }' -c "$T/pid_calls 4"
status: 0
stdout:

  libc.so.6                                           __getpid                                                          4
  libc.so.6                                           getppid                                                           4
