# rawtp:<group>::<event> runs on the raw tracepoint with the tracepoint's own
# arguments typed from BTF (btf_trace_sched_process_exec: struct task_struct *p,
# pid_t old_pid, struct linux_binprm *bprm), so args[0] is a task. The -c
# command starts stopped after its own exec; env then execs true.
args: -qn 'rawtp:sched::sched_process_exec /args[0]->pid == $target/ { printf("%s %d\n", stringof(args[0]->comm), args[1] == args[0]->pid); }' -c "/usr/bin/env true"
status: 0
stdout:
true 1

