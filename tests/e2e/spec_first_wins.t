# The first commit() or discard() of a speculation decides; a second one in the
# same clause does nothing. Several commits in one clause print in commit order.
args: -x nspec=3 -qn 'BEGIN { a = speculation(); b = speculation(); c = speculation(); } BEGIN { speculate(a); printf("a=%d\n", a); } BEGIN { speculate(b); printf("b=%d\n", b); } BEGIN { speculate(c); printf("c=%d\n", c); } BEGIN { commit(c); discard(c); discard(b); commit(b); commit(a); } BEGIN { exit(0); }'
status: 0
stdout:
c=3
a=1

stderr:
