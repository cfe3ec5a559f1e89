# %C prints a printable character as itself and others as their escape sequence
# (Dynamic Tracing Guide, printf conversion formats).
args: -qn 'BEGIN { printf("%C|%C\n", 65, 10); exit(0); }'
status: 0
stdout:
A|\n

