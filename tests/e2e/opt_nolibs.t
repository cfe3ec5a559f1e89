# -x nolibs: no D library is loaded, so curpsinfo (from the built-in procfs
# library) is unknown.
args: -x nolibs -qn 'BEGIN { trace(curpsinfo->pr_pid); exit(0); }'
status: 1
stdout:
stderr:
dtrace: invalid probe specifier BEGIN { trace(curpsinfo->pr_pid); exit(0); }: failed to resolve curpsinfo: Unknown variable name
