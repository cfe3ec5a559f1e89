# sdt probes are listed as sdt:<group>::<event> (Oracle's naming: the module is
# the tracepoint group, the function empty), with argument types from -lv.
args: -lv -n 'sdt:sched::sched_switch'
status: 0
stdout-has:
   ID   PROVIDER            MODULE                          FUNCTION NAME
		Dependency Class: ISA
		args[0]: char *
		args[1]: pid_t
		args[5]: pid_t
