# D scalar arrays declared as variables are assigned element by element: "You may only
# assign values directly to D variables using their name or by applying the array index
# operator [] to a D scalar or associative array" (Dynamic Tracing Guide, "Pointers to
# DTrace Objects"; the array must be declared first, "Array Declarations and Storage").
# Elements not assigned read 0 (D variables start zero-filled, "Scalar Variables").
args: -qn 'int a[5]; BEGIN { a[2] = 7; a[4] = a[2] + 1; a[4]++; a[0] += 3; printf("%d %d %d %d %d\n", a[0], a[1], a[2], a[3], a[4]); exit(0); }'
status: 0
stdout:
3 0 7 0 9

# Multi-dimensional scalar arrays: m[i][j] is row i, column j ("Multi-Dimensional Arrays");
# sizeof is 3 * 4 * sizeof (int).
args: -qn 'int m[3][4]; BEGIN { m[1][2] = 5; m[2][3] = 9; printf("%d %d %d %d\n", m[1][2], m[2][3], m[0][0], sizeof(m)); exit(0); }'
status: 0
stdout:
5 9 0 48

# Clause-local scalar arrays ("this int x;" declarations, "Clause-Local Variables").
args: -qn 'this int a[3]; BEGIN { this->a[1] = 4; this->a[1] *= 2; printf("%d\n", this->a[1]); exit(0); }'
status: 0
stdout:
8

# An index past the end is an invalid address: the ERROR probe fires with
# DTRACEFLT_BADADDR (1) and the clause's actions are abandoned ("Pointer Safety").
args: -qn 'int a[5]; BEGIN { i = 5; a[i] = 1; printf("not reached\n"); } ERROR { printf("error %d\n", arg4); exit(0); }'
status: 0
stdout:
error 1

stderr-re:
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x[0-9a-f]+\) at BPF pc [0-9]+
