# strtok: tokens, changing delimiters, NULL at the end; strtok(NULL, ...) without a string faults.
sh: $DTRACE -s $S/str_strtok.d
status: 0
stdout:
[one] [,,two] [three] end
fault

stderr-re:
dtrace: error in dt_clause_1 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x0\) at BPF pc [0-9]+
