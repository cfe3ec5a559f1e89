# chill(ns) spins on the CPU for ns nanoseconds (a destructive action: -w).
args: -wqn 'BEGIN { t = timestamp; chill(50000000); printf("%d\n", timestamp - t >= 50000000); exit(0); }'
status: 0
stdout:
1

stderr:
