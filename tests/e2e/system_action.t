# system() runs a printf-formatted command; its output comes in order with
# dtrace's own.
args: -wqn 'BEGIN { printf("before\n"); system("echo %s %d", "sys", 7); printf("after\n"); exit(0); }'
status: 0
stdout:
before
sys 7
after

stderr:
