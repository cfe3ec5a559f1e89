# Destructive actions need -w (or the destructive option).
args: -qn 'BEGIN { system("echo hi"); exit(0); }'
status: 1
stderr:
dtrace: could not enable tracing: Destructive actions not allowed
