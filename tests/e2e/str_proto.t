# Wrong argument types and counts are compile-time errors with DTrace's wording.
sh: $DTRACE -n 'BEGIN { strlen(12); }'; $DTRACE -n 'BEGIN { substr("a"); }'; $DTRACE -n 'BEGIN { substr("a", 1, 2, 3); }'; $DTRACE -n 'BEGIN { strtok("a"); }'; $DTRACE -n 'BEGIN { substr("a", 1, "x"); }'
status: 1
stderr:
dtrace: invalid probe specifier BEGIN { strlen(12); }: strlen( ) argument #1 is incompatible with prototype:
	prototype: char *
	 argument: int
dtrace: invalid probe specifier BEGIN { substr("a"); }: substr( ) prototype mismatch: 1 arg passed, at least 2 expected
dtrace: invalid probe specifier BEGIN { substr("a", 1, 2, 3); }: substr( ) prototype mismatch: 4 args passed, at most 3 expected
dtrace: invalid probe specifier BEGIN { strtok("a"); }: strtok( ) prototype mismatch: 1 arg passed, 2 expected
dtrace: invalid probe specifier BEGIN { substr("a", 1, "x"); }: substr( ) argument #3 is incompatible with prototype:
	prototype: int
	 argument: string
