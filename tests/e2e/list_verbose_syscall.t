# -lv for a syscall probe: Private/Private/ISA arguments, typed from the
# syscall's tracepoint format: getppid takes none.
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
		None
