# Strings compare by content.
args: -qn 'BEGIN { a = "abc"; printf("%d %d %d %d\n", a == "abc", a < "abd", "b" > "abc", a != "abc"); exit(0); }'
status: 0
stdout:
1 1 1 0


# A (string) cast and stringof are "equivalent in meaning": any scalar -- a pointer,
# an integer or a scalar array address -- may be converted to string (Dynamic
# Tracing Guide, "String Conversion").
args: -qn 'BEGIN { printf("%s %s\n", (string)(long)&curthread->comm[0], stringof((long)&curthread->comm[0])); exit(0); }'
status: 0
stdout:
dtrace dtrace

# The predicate must be of integer or pointer type: a string is not (Dynamic Tracing
# Guide, "Predicates"); string comparisons are ("String Comparison").
args: -qn 'BEGIN /execname == "dtrace"/ { printf("ok\n"); exit(0); }'
status: 0
stdout:
ok

