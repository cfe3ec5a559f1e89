# An inline may name a struct or union variable of its type; uses read the variable.
args: -qs $S/inline_struct.d
status: 0
stdout:
p 12 q

