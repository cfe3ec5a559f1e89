# Results are bounded by strsize (the longest string kept, the NUL not counted).
args: -x strsize=6 -qn 'BEGIN { printf("[%s] [%s] [%s] %d\n", strjoin("abcd", "efgh"), toupper("abcdefgh"), lltostr(123456789), strlen(strjoin("ab", "cdefgh"))); exit(0); }'
status: 0
stdout:
[abcdef] [ABCDEF] [123456] 6

