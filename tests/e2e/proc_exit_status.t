# proc:::exit fires once per process, in it, with how it exited: CLD_EXITED,
# CLD_KILLED (by SIGKILL here), in the order the children end (the
# `sleep 0.3` exits first).
args: -qn 'proc:::exit /ppid == $target/ { printf("%s %d\n", execname, args[0]); } proc:::exit /ppid == $target && args[0] == CLD_KILLED/ { printf("killed\n"); }' -c "sh $S/proc_exits.sh"
status: 0
stdout:
sh 1
sleep 1
sleep 2
killed
true 1

