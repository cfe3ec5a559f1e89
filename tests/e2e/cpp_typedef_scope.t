# Redeclaring a typedef in the program's own scope with another type is an
# error (only a header may shadow D's predefined names).
args: -C -s "$S/cpp_typedef_scope.d"
status: 1
stdout:
stderr-re:
dtrace: failed to compile script .*/cpp_typedef_scope\.d: line 4: typedef redeclared: myint_t
