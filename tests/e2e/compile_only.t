# -e exits after compiling.
args: -e -n 'BEGIN { exit(0); }'
status: 0
stdout:
