# proc:::exec-success fires once per successful exec, in the new image, where
# curpsinfo->pr_psargs is its whole argument string; exec fires for every
# attempt with the path, exec-failure with the errno of a failed one.
args: -qn 'proc:::exec-success /ppid == $target/ { printf("%s\n", curpsinfo->pr_psargs); } proc:::exec /ppid == $target/ { @exec[args[0]] = count(); } END { printa("%s %@d\n", @exec); } proc:::exec-failure /ppid == $target/ { printf("failed %d\n", args[0]); }' -c "sh $S/proc_execs.sh"
status: 0
stdout:
/bin/true first run
/bin/echo hello world
/bin/true second run
failed 2
/bin/echo 1
/nonexistent/command 1
/bin/true 2

