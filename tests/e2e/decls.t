# Declarations: struct layout (sizes and offsets by DTrace's layout rules), typedefs,
# enums, inline constants (also as lquantize parameters) and typed variables.
args: -qs "$S/decls.d"
status: 0
stdout-has:
40 4 8 16 24 32 40
0 5 6 6 hello 4
6 7 hello 1
1 8
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
