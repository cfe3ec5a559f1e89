# An error in an included file names that file and its line.
args: -C -xerrtags -s "$S/cpp_badinc.d"
status: 1
stdout:
stderr-re:
dtrace: failed to compile script .*/cpp_badinc\.d: \[D_OP_ARITH\] ".*cpp_badinc\.h", line 2: operator \* .*
