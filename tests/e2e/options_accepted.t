# bufsize, switchrate, strsize, aggsize and dynvarsize are accepted; strsize bounds strings
# (it is the longest string kept, the NUL not counted).
args: -x bufsize=1m -x switchrate=10hz -x aggsize=1m -x dynvarsize=2m -x strsize=4 -qn 'BEGIN { s = "abcdefgh"; printf("%s\n", s); exit(0); }'
status: 0
stdout:
abcd

