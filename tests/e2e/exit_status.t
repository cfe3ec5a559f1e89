# exit(N) makes dtrace exit with status N.
args: -qn 'BEGIN { exit(3); }'
status: 3
stdout:

