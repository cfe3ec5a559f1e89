# Character constants as DTrace reads them: several characters make one
# big-endian integer (a long when too large for an int), and only DTrace's
# escapes are escapes: in '\?' the backslash stays, so it is two characters.
args: -qn 'BEGIN { printf("%d %d %d %d\n", '"'"'ab'"'"', '"'"'\?'"'"', '"'"'\x41'"'"', sizeof ('"'"'abcdefgh'"'"')); exit(0); }'
status: 0
stdout:
24930 23615 65 8

