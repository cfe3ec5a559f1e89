# -v while tracing: the report follows the "matched" notice.
args: -qv -n 'BEGIN { exit(0); }'
status: 0
stdout:

Stability attributes for description BEGIN :

	Minimum Probe Description Attributes
		Identifier Names: Unstable
		Data Semantics:   Unstable
		Dependency Class: Common

	Minimum Statement Attributes
		Identifier Names: Stable
		Data Semantics:   Stable
		Dependency Class: Common


