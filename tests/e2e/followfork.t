# -x followfork (ours): pid probes of the target also fire in the processes
# it forks and in theirs, each held before it runs until its probes are
# attached, so no call is missed; pid there is the child's.
args: -q -x followfork -n 'pid$target:a.out:work:entry { printf("%d %s\n", arg0, pid == $target ? "target" : "child"); }' -c "$T/fork_calls"
status: 0
stdout:
0 target
10 child
20 child
100 child

