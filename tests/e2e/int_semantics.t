# C integer semantics: truncating division, signed shift, unsigned conversion, ternary.
args: -qn 'BEGIN { printf("%d %d %d %d %u %d\n", -7 / 2, -7 % 2, 7 >> 1, -8 >> 1, (unsigned int)-1, 1 ? 2 : 3); exit(0); }'
status: 0
stdout:
-3 -1 3 -4 4294967295 2

# "Character constants are assigned the type int" (Dynamic Tracing Guide, "Constants"):
# sizeof ('a') is sizeof (int), and 'a' is the ASCII value 97.
args: -qn 'BEGIN { printf("%d %d %d\n", sizeof('"'"'a'"'"'), '"'"'a'"'"', '"'"'a'"'"' + 1); exit(0); }'
status: 0
stdout:
4 97 98

