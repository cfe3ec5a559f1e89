# basename, dirname and cleanpath, with trailing and repeated slashes, "." and "..".
# cleanpath drops "/./" and collapses "/../" (a trailing "/." is not "/./" and stays).
sh: $DTRACE -s $S/str_path.d
status: 0
stdout:
[libc.so.6] [lib] [/] [.] [file] [a]
[/usr/lib] [/usr] [/] [.] [.] [/]
[/a/b/d] [/a/] [/a/.hidden/..x/.] [/x]

