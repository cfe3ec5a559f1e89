# Speculations on real probes: each getppid call of the child speculates one line
# and commits it on return. Every call is either printed or counted as a failed
# speculation (the consumer frees buffers asynchronously): printed + failed = 300.
sh: out=$("$DTRACE" -x nspec=4 -qn 'syscall::getppid:entry /pid == $target/ { self->s = speculation(); } syscall::getppid:entry /self->s/ { speculate(self->s); printf("call\n"); } syscall::getppid:return /self->s/ { commit(self->s); self->s = 0; }' -c "$T/getppid_loop 300" 2>&1); n=$(printf '%s\n' "$out" | grep -c '^call$'); f=$(printf '%s\n' "$out" | sed -n 's/^dtrace: \([0-9]*\) failed speculations\{0,1\} .*/\1/p' | awk '{s+=$1} END {print s+0}'); echo "total $((n + f))"
status: 0
stdout:
total 300
