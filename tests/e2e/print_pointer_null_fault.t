# `->` checks its pointer first: a NULL pointer faults at address 0 (ERROR's arg5), not at the member's offset.
args: -qn 'BEGIN { p = (struct task_struct *)0; trace(p->pid); exit(0); } ERROR { printf("fault %d at %d\n", arg4, arg5); exit(0); }'
status: 0
stdout:
fault 1 at 0

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x0\) at BPF pc [0-9]+
