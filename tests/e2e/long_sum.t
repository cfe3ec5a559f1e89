# A long left-associative chain needs only two temporaries: 200 terms compile and add up.
args: -qn 'tick-1ms { x = arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0; printf("%d\n", x == 60 * arg0); exit(0); }'
status: 0
stdout:
1

