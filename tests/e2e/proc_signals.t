# proc:::signal-send fires in the sender (kill) with the target and signal;
# a signal the target ignores is signal-discard instead; signal-handle fires
# in the receiver, also for the fatal SIGTERM it does not catch.
args: -qn 'proc:::signal-send /(curpsinfo->pr_ppid == $target || pid == $target) && args[2] != SIGCHLD/ { @send[args[2], args[1]->pr_pid == pid ? "self" : "child", args[0]->pr_lwpid == args[1]->pr_pid] = count(); } proc:::signal-discard /args[1]->pr_ppid == $target/ { @discard[args[2]] = count(); } proc:::signal-handle /ppid == $target/ { @handle[execname, args[0], args[2] != 0] = count(); } END { printa("send %d %s %d %@d\n", @send); printa("discard %d %@d\n", @discard); printa("handle %s %d %d %@d\n", @handle); }' -c "sh $S/proc_signals.sh"
status: 0
stdout:
send 15 child 1 1
send 12 self 1 2
discard 1 1
handle sleep 15 0 1
handle sh 12 1 2

