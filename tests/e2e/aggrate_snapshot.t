# aggrate: printa() prints the aggregations as last read, and they are read
# once per aggrate period, not at each printa() (Dynamic Tracing Guide,
# "Options and Tunables"). Read first at the first buffer read (10ms in,
# after BEGIN counted 1), then not again for an hour: every printa() shows 1.
args: -x aggrate=1h -x switchrate=10ms -qn 'BEGIN { @ = count(); } tick-50ms /i++ < 4/ { @ = count(); printa("%@d\n", @); } tick-50ms /i == 5/ { exit(0); }'
status: 0
stdout:
1
1
1
1

