# $pid, $uid, ... are dtrace's own ids; Linux has no projects or tasks, so
# $projid and $taskid are 0.
args: -qn 'BEGIN { printf("%d %d %d %d %d %d\n", $pid == pid, $ppid == ppid, $uid == uid, $gid == gid, $projid, $taskid); exit(0); }'
status: 0
stdout:
1 1 1 1 0 0

