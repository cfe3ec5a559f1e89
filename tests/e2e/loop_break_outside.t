# break outside a loop is a syntax error.
args: -qn 'BEGIN { break; }'
status: 1
stdout:
stderr-has:
break outside a loop
