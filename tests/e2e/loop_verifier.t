# A loop the verifier cannot bound within its budget (strlen() evaluated on every pass) is reported by its line, not with a verifier log; nothing is enabled.
args: -qn 'BEGIN { s = "hello"; for (i = 0; i < strlen(s); i++) o++; exit(0); }'
status: 1
stdout:
stderr:
dtrace: failed to enable tracing: the loop at line 1 could not be proven to terminate by the BPF verifier (bound it with a counter, e.g. for (i = 0; i < 100; i++))
