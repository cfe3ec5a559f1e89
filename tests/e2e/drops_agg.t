# A full aggregation map drops updates and says so (aggsize bounds the aggregation's entries).
args: -x aggsize=1k -qn 'syscall::getppid:entry /pid == $target/ { @[timestamp] = count(); }' -c "$T/getppid_loop 2000"
status: 0
stderr-re:
dtrace: [0-9]+ aggregation drops on CPU [0-9]+
