# raise() signals the thread that fired the probe (needs -w): the target is
# killed at its first getppid().
args: -wn 'syscall::getppid:entry /pid == $target/ { raise(9); }' -c "$T/getppid_loop 1000000"
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+ +[0-9]+ +getppid:entry 

stderr-re:
dtrace: description 'syscall::getppid:entry ' matched 1 probe
dtrace: allowing destructive actions
dtrace: pid [0-9]+ terminated by SIGKILL
