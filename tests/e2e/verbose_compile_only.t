# -v with -e: the program's minimum attributes, then each probe description.
args: -ev -n 'BEGIN, profile:::tick-1s { exit(0); }'
status: 0
stdout:

Stability attributes for description BEGIN, profile:::tick-1s :

	Minimum Probe Description Attributes
		Identifier Names: Unstable
		Data Semantics:   Unstable
		Dependency Class: Common

	Minimum Statement Attributes
		Identifier Names: Stable
		Data Semantics:   Stable
		Dependency Class: Common

:::BEGIN

	Probe Description Attributes
		Identifier Names: Unstable
		Data Semantics:   Unstable
		Dependency Class: Common

	Argument Attributes
		Identifier Names: Stable
		Data Semantics:   Stable
		Dependency Class: Common

	Argument Types
		None


profile:::tick-1s

	Probe Description Attributes
		Identifier Names: Evolving
		Data Semantics:   Evolving
		Dependency Class: Common

	Argument Attributes
		Identifier Names: Evolving
		Data Semantics:   Evolving
		Dependency Class: Common

	Argument Types
		args[0]: uint64_t
		args[1]: uint64_t

