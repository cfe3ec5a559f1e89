# The ERROR probe fires on a fault with arg4 = the fault type (DTRACEFLT_DIVZERO is 4).
# The fault message is followed by "dtrace: 1 error on CPU N" (Solaris Dynamic Tracing Guide, "ERROR Probe" example).
args: -qn 'BEGIN { x = 0; y = 1 / x; } ERROR { printf("error %d\n", arg4); exit(0); }'
status: 0
stdout:
error 4

stderr-re:
dtrace: error on enabled probe ID 1 \(ID 1: dtrace:::BEGIN\): divide-by-zero in action #2 at DIF offset [0-9]+
dtrace: 1 error on CPU [0-9]+
