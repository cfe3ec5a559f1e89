# Indexing a string yields its characters (as char); a string cast to char * is
# the address of its characters; an index past the string's buffer is an invalid
# address fault.
args: -qn 'BEGIN { s = "ABCDEFG"; a["k"] = "hello"; p = (char *)s; printf("%d %c %c%c %c %s %d\n", s[1], execname[0], a["k"][0], a["k"][4], *(p + 2), stringof(p), sizeof("hi")); } BEGIN { i = 100000; trace(s[i]); } BEGIN { exit(0); }'
status: 0
stdout:
66 d ho C ABCDEFG 3

stderr-re:
dtrace: error in dt_clause_1 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x186a0\) at BPF pc [0-9]+
