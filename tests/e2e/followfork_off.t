# Without -x followfork, as in DTrace, pid probes fire in the target only:
# its children call work() too, unseen.
args: -q -n 'pid$target:a.out:work:entry { printf("%d %s\n", arg0, pid == $target ? "target" : "child"); }' -c "$T/fork_calls"
status: 0
stdout:
0 target

