# -U removes a definition made by an earlier -D.
args: -C -D FOO=7 -U FOO -s "$S/cpp_ok.d"
status: 1
stdout:
stderr-re:
dtrace: failed to compile script .*/cpp_ok\.d: line 6: failed to resolve FOO: Unknown variable name
