# A base outside 2..36 is an illegal operation.
args: -qn 'BEGIN { x = 1; trace(lltostr(10, x)); } BEGIN { exit(0); }'
status: 0
stdout:

stderr-re:
dtrace: error on enabled probe ID 1 \(ID 1: dtrace:::BEGIN\): illegal operation in action #2 at DIF offset [0-9]+
dtrace: 1 error on CPU [0-9]+
