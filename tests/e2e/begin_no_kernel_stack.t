# BEGIN and END fire in dtrace's own context, not at a kernel event: there is no
# kernel stack (stackdepth and caller are 0, stack() has no frames), so a
# stack-derived number used as an offset is 0 there.
args: -qn 'BEGIN { printf("%d %d\n", stackdepth, caller == 0); i = stackdepth; printf("%s\n", substr(strjoin("abc", "def"), i)); exit(0); } END { printf("%d\n", stackdepth); }'
status: 0
stdout:
0 1
abcdef
0

