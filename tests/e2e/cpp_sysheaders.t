# -C with system headers: <stdint.h>, <endian.h> and <limits.h> compile, the
# macros DTrace defines for cpp are there and __GNUC__ is not.
args: -q -C -s "$S/cpp_sysheaders.d"
status: 0
stdout:
little 3412
8 8 1
linux unix svr4
D 1

