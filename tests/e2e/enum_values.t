# Enumerators without a value take the previous value plus one, and a value may name
# an earlier enumerator of the same enum, as in ANSI-C (Dynamic Tracing Guide,
# "Enumerations"; libdtrace resolves earlier enumerators while declaring the enum).
args: -qn 'enum e { A = 1, B = A + 1, C, D = C * 10 }; BEGIN { printf("%d %d %d %d\n", A, B, C, D); exit(0); }'
status: 0
stdout:
1 2 3 30

