# A deleted file's path ends in " (deleted)", as the kernel's d_path() writes
# it; strsize cuts the whole. The traced child inherits descriptor 3, opened on
# a file that was then removed.
sh: f=$(mktemp /tmp/dtrace-e2e-deleted.XXXXXX); exec 3>"$f"; rm "$f"; for s in 256 12; do "$DTRACE" -x strsize=$s -qn 'syscall::getppid:entry /pid == $target/ { printf("%s|%s\n", substr(fds[3].fi_pathname, 0, 4), basename(fds[3].fi_pathname)); }' -c "$T/getppid_loop 1"; done | sed 's/deleted\.[A-Za-z0-9]*/deleted.X/g'
status: 0
stdout:
/tmp|dtrace-e2e-deleted.X (deleted)

/tmp|dtrace-

