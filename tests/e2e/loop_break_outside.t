# break outside a loop is a syntax error.
args: -qn 'BEGIN { break; }'
status: 1
stdout:
stderr:
dtrace: invalid probe specifier BEGIN { break; }: break outside a loop
