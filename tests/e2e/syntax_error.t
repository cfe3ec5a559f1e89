# A syntax error in -n: dtrace's "invalid probe specifier" form, exit status 1.
args: -n 'BEGIN { x = ; }'
status: 1
stdout:
stderr:
dtrace: invalid probe specifier BEGIN { x = ; }: syntax error near ";"
