# A __data_loc string field (sched:sched_process_exec's filename) is args[0],
# the address of the string in the record, read with stringof().
args: -qn 'sdt:sched::sched_process_exec /pid == $target/ { printf("%s %d\n", stringof(args[0]), args[1] == pid); }' -c /bin/true
status: 0
stdout:
/bin/true 1

