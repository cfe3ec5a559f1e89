# A false predicate skips the clause.
args: -qn 'BEGIN /0/ { printf("no\n"); } BEGIN { exit(0); }'
status: 0
stdout:

