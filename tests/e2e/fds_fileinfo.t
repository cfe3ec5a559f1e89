# fds[fd] is the fileinfo_t of the current process's open file fd: its path
# (d_path, across mounts: /proc is a mount of its own), name, directory, file
# system, mount point, offset and open flags (O_LARGEFILE, with O_DIRECTORY
# for the first). openat_in opens /proc/sys, then kernel in it.
args: -qn 'syscall::openat:return /pid == $target && arg1 >= 0 && fds[arg1].fi_fs == "proc"/ { printf("%s %s %s %s %s %d %x\n", fds[arg1].fi_pathname, fds[arg1].fi_name, fds[arg1].fi_dirname, fds[arg1].fi_fs, fds[arg1].fi_mount, fds[arg1].fi_offset, fds[arg1].fi_oflags & 0x18003); }' -c "$T/openat_in /proc/sys kernel"
status: 0
stdout:
/proc/sys sys /proc proc /proc 0 18000
/proc/sys/kernel kernel /proc/sys proc /proc 0 8000

