# -C runs the C preprocessor: -D defines a macro, #include "..." is found next
# to the script, and the interpreter line is not a directive.
args: -q -C -D FOO=7 -s "$S/cpp_ok.d"
status: 0
stdout:
3 7

