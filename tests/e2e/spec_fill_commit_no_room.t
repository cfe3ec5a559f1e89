# bufpolicy=fill: a commit with more data than the principal buffer has room for
# copies nothing and counts a drop for that buffer (Dynamic Tracing Guide,
# "Committing a Speculation"); the buffer is then full and tracing stops. A
# commit that fits prints its data.
sh: for n in 1000 8; do "$DTRACE" -x bufpolicy=fill -b 4k -x specsize=1m -qn 'BEGIN { s = speculation(); } syscall::getppid:entry /pid == $target/ { speculate(s); trace(1); } syscall::exit_group:entry /pid == $target/ { commit(s); }' -c "taskset -c 0 $T/getppid_loop $n" 2>&1; done
status: 0
stdout:
dtrace: 1 drop on CPU 0

11111111
