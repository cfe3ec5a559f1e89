# fds[] of a negative, too large or closed descriptor is the fileinfo_t of no
# file: every name "<none>", offset -1, flags 0 (Dynamic Tracing Guide,
# "fileinfo_t").
args: -qn 'BEGIN { printf("%s %s %s %d %s %s %x\n", fds[-1].fi_pathname, fds[1 << 30].fi_name, fds[1000].fi_dirname, fds[1000].fi_offset, fds[1000].fi_fs, fds[-5].fi_mount, fds[1000].fi_oflags); exit(0); }'
status: 0
stdout:
<none> <none> <none> -1 <none> <none> 0

