# -lv shows a kernel SDT probe's translated argument types (psinfo_t * for
# the native struct task_struct *); a probe DTrace documents that no kernel
# tracepoint can present is not listed, and enabling it says why.
sh: "$DTRACE" -lvn proc:::signal-send | sed 1,2d; "$DTRACE" -ln sched:::tick; "$DTRACE" -n 'sched:::tick { }'; echo "status $?"
status: 0
stdout:

	Probe Description Attributes
		Identifier Names: Private
		Data Semantics:   Private
		Dependency Class: Unknown

	Argument Attributes
		Identifier Names: Evolving
		Data Semantics:   Evolving
		Dependency Class: ISA

	Argument Types
		args[0]: lwpsinfo_t *
		args[1]: psinfo_t *
		args[2]: int

   ID   PROVIDER            MODULE                          FUNCTION NAME
status 1
stderr:
dtrace: failed to match sched:::tick: No probe matches description
dtrace: invalid probe specifier sched:::tick { }: probe description sched:::tick does not match any probes: no kernel tracepoint fires on the scheduler's clock tick
