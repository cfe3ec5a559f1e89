# d_path() names a pipe as the kernel does, "pipe:[INO]" (the file system
# has no path for it), and fds[] gives its file system; the process's working
# directory and root are paths too.
sh: cd /tmp && echo | "$DTRACE" -qn 'BEGIN { printf("%s\n%s %s\n%s %s\n", fds[0].fi_pathname, fds[0].fi_fs, fds[0].fi_name == fds[0].fi_pathname ? "same" : "differs", d_path(&curthread->fs->pwd), d_path(&curthread->fs->root)); exit(0); }'
status: 0
stdout-re:
pipe:\[[0-9]+\]
pipefs same
/tmp /

