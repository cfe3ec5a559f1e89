# Strings compare by content.
args: -qn 'BEGIN { a = "abc"; printf("%d %d %d %d\n", a == "abc", a < "abd", "b" > "abc", a != "abc"); exit(0); }'
status: 0
stdout:
1 1 1 0

