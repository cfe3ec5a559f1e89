# A type error in a script names the file and line.
args: -s "$S/optype.d"
status: 1
stdout:
stderr-re:
dtrace: failed to compile script .*/optype\.d: line 3: operator \* requires operands of arithmetic type
