# $1 is an integer, $$2 a string.
args: -qn 'BEGIN { printf("%d %s\n", $1 + 1, $$2); exit(0); }' 41 hello
status: 0
stdout:
42 hello

