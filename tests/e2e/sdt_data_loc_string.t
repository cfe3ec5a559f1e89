# A __data_loc string field (sched:sched_process_exec's filename) is args[0],
# the address of the string in the record, read with stringof(). The -c command
# is held at its entry point until tracing starts, so its own exec is not seen:
# env runs and then execs /bin/true in the same process.
args: -qn 'sdt:sched::sched_process_exec /pid == $target/ { printf("%s %d\n", stringof(args[0]), args[1] == pid); }' -c '/usr/bin/env /bin/true'
status: 0
stdout:
/bin/true 1

