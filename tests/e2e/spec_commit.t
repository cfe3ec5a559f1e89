# commit() prints a speculation's records where the commit is in the stream of
# records, after output traced later but consumed earlier (Dynamic Tracing Guide,
# "Speculative Tracing": the speculative buffer is copied to the principal buffer).
args: -qn 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("speculative %d\n", s); } BEGIN { printf("before commit\n"); } BEGIN { commit(s); } BEGIN { printf("after commit\n"); exit(0); }'
status: 0
stdout:
before commit
speculative 1
after commit

stderr:
