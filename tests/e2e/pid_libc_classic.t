# The classic pid example: every libc function's entries counted by name, on a
# program that calls getpid(2) and getppid(2) through libc 7 times each; a -c
# command is held until the probes are attached, so no call is missed.
# (getpid is left out: glibc's preferred name for it is its global alias
# `__getpid`, the name a lookup by address gives.)
args: -q -n 'pid$target:libc.so.6::entry { @[probefunc] = count(); }' -c "$T/pid_calls 7"
status: 0
stdout-has:
  getppid                                                           7
