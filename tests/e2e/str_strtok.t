# strtok: tokens, changing delimiters, NULL at the end; strtok(NULL, ...) without a string faults.
sh: $DTRACE -s $S/str_strtok.d
status: 0
stdout:
[one] [,,two] [three] end
fault

stderr-re:
dtrace: error on enabled probe ID [0-9]+ \(ID 1: dtrace:::BEGIN\): invalid address \(0x0\) in action #1 at DIF offset [0-9]+
dtrace: 1 error on CPU [0-9]+
