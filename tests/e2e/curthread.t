# curthread is a struct task_struct *: members agree with the built-in variables.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
args: -qn 'BEGIN { printf("%d %d %d %s|%s\n", curthread->pid == pid, curthread->real_parent->tgid == ppid, curthread->comm == execname, stringof(curthread->comm), curthread->comm); @[curthread->comm] = count(); exit(0); }'
status: 0
stdout:
1 1 1 dtrace|dtrace

  dtrace                                                            1
