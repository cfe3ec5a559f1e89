# A clause that only assigns variables records nothing (the Guide's rwtime.d prints only
# the return lines); an empty clause takes the default action and prints the probe.
args: -n 'syscall::getppid:entry /pid == $target/ { ts = timestamp; } syscall::getppid:return /pid == $target && ts/ { printf("%d", ts > 0); } END { }' -c "$T/getppid_loop 2"
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+ +[0-9]+ +getppid:return 1
 +[0-9]+ +[0-9]+ +getppid:return 1
 +[0-9]+ +2 +:END 

