# An array assigned to a pointer decays to the address of its first element.
args: -qn 'int array[5]; int *p; BEGIN { array[0] = 100; array[4] = 500; p = array; printf("%d %d %d\n", p[0], p[4], *(p + 4)); exit(0); }'
status: 0
stdout:
100 500 500

# Elements of a declared array indexed by a run-time value are read and written;
# an index past the end faults (invalid address, DTRACEFLT_BADADDR in ERROR's
# arg4) instead of reading neighbouring memory.
args: -qn 'int a[5]; BEGIN { i = 0; a[i] = 12345678; i = 3; a[i] = 7; printf("%d %d %d\n", a[0], a[i], a[3]); } BEGIN { i = 7; trace(a[i]); } ERROR { printf("error %d\n", arg4); exit(0); }'
status: 0
stdout:
12345678 7 7
error 1

stderr-re:
dtrace: error in dt_clause_1 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x7\) at BPF pc [0-9]+
