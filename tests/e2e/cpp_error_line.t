# After cpp, a compile error names the script's own line (line markers).
args: -C -s "$S/cpp_bad.d"
status: 1
stdout:
stderr-re:
dtrace: failed to compile script .*/cpp_bad\.d: line 6: operator \+ .*
