# ... unless -xdefaultargs, which makes it 0 (and "" as $$name).
args: -xdefaultargs -qn 'BEGIN { printf("%d [%s]\n", $nosuch, $$nosuch); exit(0); }'
status: 0
stdout:
0 []

