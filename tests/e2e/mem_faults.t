# Memory faults end their clause and fire ERROR with DTrace's fault code (arg4:
# 1 invalid address, 5 out of scratch space, 10 invalid size) and value (arg5);
# later clauses still run. A load past an allocation and a store before it are
# invalid addresses; a bcopy that starts inside and ends past it is an invalid
# size (the size); an allocation past scratchsize is out of scratch space; copyin
# and copyinstr of unmapped user addresses are invalid addresses (the address).
sh: printf '%s\n' 'BEGIN { s = (char *)alloca(15); trace(s[16]); }' 'BEGIN { s = (int *)alloca(8); s[-1] = 1; }' 'BEGIN { s = (char *)alloca(16); bcopy("0123", &s[14], 4); }' 'BEGIN { sz = 65; alloca(sz); }' 'BEGIN { copyin(0x1234, 8); }' 'BEGIN { copyinstr(0); }' 'BEGIN { p = (char *)alloca(1); *p = 1; }' 'BEGIN { trace(*p); }' 'BEGIN { exit(0); }' 'ERROR { printf("%d %d\n", arg4, arg4 == 1 ? 0 : arg5); }' | $DTRACE -q -x scratchsize=64 -s /dev/stdin
status: 0
stdout:
1 0
1 0
10 4
5 0
1 0
1 0
1 0

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x[0-9a-f]+\) at BPF pc [0-9]+
dtrace: error in dt_clause_1 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x[0-9a-f]+\) at BPF pc [0-9]+
dtrace: error in dt_clause_2 for probe ID 1 \(dtrace:::BEGIN\): invalid size \(0x4\) at BPF pc [0-9]+
dtrace: error in dt_clause_3 for probe ID 1 \(dtrace:::BEGIN\): out of scratch space at BPF pc [0-9]+
dtrace: error in dt_clause_4 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x1234\) at BPF pc [0-9]+
dtrace: error in dt_clause_5 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x0\) at BPF pc [0-9]+
dtrace: error in dt_clause_7 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x[0-9a-f]+\) at BPF pc [0-9]+
