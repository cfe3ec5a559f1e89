# %f expects a floating-point argument: an integer is a prototype mismatch.
args: -qn 'BEGIN { printf("%f", 1); exit(0); }'
status: 1
stdout:
stderr:
dtrace: invalid probe specifier BEGIN { printf("%f", 1); exit(0); }: printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %f
	 prototype: double
	  argument: int
