# Format strings are parsed once, with dtrace's messages.
args: -qn 'BEGIN { printf("%.*.*d\n", 1, 2, 3); }'
status: 1
stderr-re:
dtrace: invalid probe specifier .*: format conversion #1 has more than one '.' specified
