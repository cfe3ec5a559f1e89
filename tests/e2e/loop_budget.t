# A loop that runs past the per-firing pass budget ends the firing with an error; tracing goes on.
args: -qn 'BEGIN { x = 0; while (x >= 0) x++; } tick-10ms { exit(0); }'
status: 0
stderr-has:
illegal operation
