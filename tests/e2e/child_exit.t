# Tracing stops when the -c command exits.
args: -n 'syscall::getpid:entry /pid == $target/ { printf("getpid\n"); }' -c "$T/exit_with 7"
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+ +[0-9]+ +getpid:entry getpid


stderr-re:
dtrace: description 'syscall::getpid:entry ' matched 1 probe
dtrace: pid [0-9]+ (has exited|exited with status 7)
