# With _DTRACE_TESTING in the environment, dtrace(1) prints per-probe lines as
# FUNCTION:NAME alone, "%32s", without the CPU and ID columns (Oracle's dtrace.c
# testing mode); the final newline is still printed.
sh: _DTRACE_TESTING=1 $DTRACE -n 'BEGIN { exit(0); }'
status: 0
stdout:
                   FUNCTION:NAME
                          :BEGIN 

