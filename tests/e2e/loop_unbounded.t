# A loop that can never end is refused before anything is enabled.
args: -qn 'BEGIN { while (1) {} }'
status: 1
stdout:
stderr:
dtrace: invalid probe specifier BEGIN { while (1) {} }: loop could not be proven to terminate (bound it with a counter, e.g. for (i = 0; i < 100; i++))
