# An exit() in END sets the status too: dtrace(1) calls exit(3C) "with the status
# value specified" (Solaris Dynamic Tracing Guide, "Actions and Subroutines",
# exit), and END's exit() is the last one specified. Later END clauses still run.
args: -qn 'BEGIN { exit(0); } END { exit(4); } END { printf("second end\n"); }'
status: 4
stdout:
second end

