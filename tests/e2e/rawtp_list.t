# rawtp probes are listed like sdt's (module: the group, function empty) and
# -lv shows their BTF argument types, the context pointer left out.
args: -lv -n rawtp:sched::sched_switch
status: 0
stdout-has:
   ID   PROVIDER            MODULE                          FUNCTION NAME
	Argument Types
		args[0]: bool
		args[1]: struct task_struct *
		args[2]: struct task_struct *
		args[3]: unsigned int
