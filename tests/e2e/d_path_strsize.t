# d_path() keeps at most strsize bytes.
args: -x strsize=12 -qn 'syscall::openat:return /pid == $target && arg1 >= 0 && fds[arg1].fi_fs == "proc"/ { printf("[%s]\n", d_path(&curthread->files->fdt->fd[arg1]->f_path)); }' -c "$T/openat_in /proc/sys kernel"
status: 0
stdout:
[/proc/sys]
[/proc/sys/ke]

