# A string variable may hold NULL: NULL equals only NULL and sorts below every
# string, even ""; a thread-local or associative-array string never assigned is
# NULL; strchr/strstr without a match return NULL; reading NULL's characters
# (tracing it, indexing it) faults at address 0 plus the index, and ERROR sees
# DTRACEFLT_BADADDR (1) with that address.
args: -qn 'BEGIN { s = "abc"; n = s; n = NULL; e = ""; printf("%d %d %d %d %d\n", n == NULL, s != NULL, n < e, e > n, strchr(s, 122) == NULL); a["k"] = "v"; printf("%d %d\n", a["never"] == NULL, strstr(s, "bc") == NULL); } BEGIN { s = NULL; printf("%d\n", s[2]); } ERROR { printf("fault %d at %d\n", arg4, arg5); } BEGIN { self->t = "x"; self->t = NULL; trace(self->t); } BEGIN { exit(0); }'
status: 0
stdout:
1 1 1 1 1
1 0
fault 1 at 2
fault 1 at 0

stderr-re:
dtrace: error in dt_clause_1 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x2\) at BPF pc [0-9]+
dtrace: error in dt_clause_3 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x0\) at BPF pc [0-9]+
