# chill(ns) spins on the CPU for ns nanoseconds (a destructive action: -w). timestamp is read once per firing, so the wait shows at the tick's next firing.
args: -wqn 'tick-1ms /n == 0/ { n = 1; t = timestamp; chill(50000000); } tick-1ms /n == 1 && timestamp != t/ { printf("%d\n", timestamp - t >= 50000000); exit(0); }'
status: 0
stdout:
1

stderr:
