# $target is defined for -l with -c: the pid probe is listed under the
# process's provider, with the executable's file name as its module.
sh: $DTRACE -l -n 'pid$target:a.out:work:entry' -c "$T/pid_calls" | sed -E 's/^ *[0-9]+ +pid[0-9]+ +/ID pidN /'
status: 0
stdout:
   ID   PROVIDER            MODULE                          FUNCTION NAME
ID pidN pid_calls                              work entry
