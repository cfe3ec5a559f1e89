# With nspec=1, a second speculation() finds no buffer (0, "no speculative buffer
# available"); after a commit, the buffer stays busy until the consumer has
# processed it ("available buffer(s) still busy").
args: -qn 'BEGIN { a = speculation(); b = speculation(); printf("%d %d\n", a, b); } BEGIN { commit(a); } BEGIN { printf("%d\n", speculation()); exit(0); }'
status: 0
stdout:
1 0
0

stderr:
dtrace: 1 failed speculation (available buffer(s) still busy)
dtrace: 1 failed speculation (no speculative buffer available)
