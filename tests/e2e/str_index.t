# s[i] on a string is its char at index i (0 past the end of the string); an index
# outside [0, strsize) faults with invalid address, naming the index.
args: -qn 'BEGIN { s = "ABCDEFG"; printf("%d %c %d\n", s[1], s[6], s[7]); } BEGIN { s = "ABC"; trace(s[300]); } BEGIN { exit(0); }'
status: 0
stdout:
66 G 0

stderr-re:
dtrace: error in dt_clause_1 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x12c\) at BPF pc [0-9]+
