# -lv for a syscall probe: Private/Private/ISA arguments, typed args.
args: -lv -n syscall::getppid:entry
status: 0
stdout-has:
	Probe Description Attributes
		Identifier Names: Private
		Data Semantics:   Private
		Dependency Class: Unknown
	Argument Attributes
		Identifier Names: Private
		Data Semantics:   Private
		Dependency Class: ISA
	Argument Types
		args[0]: uint64_t
		args[1]: uint64_t
		args[2]: uint64_t
		args[3]: uint64_t
		args[4]: uint64_t
		args[5]: uint64_t
