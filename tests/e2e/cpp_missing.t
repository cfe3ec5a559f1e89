# A preprocessor that cannot be run is a clear compile failure.
args: -C -x cpppath=/nonexistent/cpp -s "$S/cpp_ok.d"
status: 1
stdout:
stderr-re:
dtrace: failed to compile script .*/cpp_ok\.d: cannot run the C preprocessor /nonexistent/cpp: not found \(install gcc's cpp, or name it with -x cpppath=PATH\)
