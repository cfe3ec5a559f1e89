# BEGIN fires in dtrace's own context; walltimestamp is wall-clock time.
args: -qn 'BEGIN { printf("%d %d %d\n", pid == $pid, ppid == $ppid, walltimestamp / 1000000000 > 1700000000); exit(0); }'
status: 0
stdout:
1 1 1

