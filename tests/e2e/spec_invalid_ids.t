# speculate() on ID 0 or an ID that is not active ends the clause quietly;
# commit(0) does nothing; commit() of an ID above nspec is an illegal operation.
args: -qn 'BEGIN { speculate(0); printf("not reached\n"); } BEGIN { speculate(1); printf("not reached either\n"); } BEGIN { commit(0); ok = 1; } BEGIN /ok/ { printf("commit(0) ok\n"); } BEGIN { discard(2); printf("not reached\n"); } BEGIN { exit(0); }'
status: 0
stdout:
commit(0) ok

stderr-re:
dtrace: error in dt_clause_4 for probe ID 1 \(dtrace:::BEGIN\): illegal operation at BPF pc [0-9]+
