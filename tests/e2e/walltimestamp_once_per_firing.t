# `walltimestamp` is one value per probe firing (as `timestamp`): reads in one
# clause and in the next clause of the same firing agree; a later firing is later.
args: -qn 'BEGIN { n = 0; d = 1; w = (uint64_t)0; last = (uint64_t)0; } tick-1ms /n >= 3/ { exit(0); } tick-1ms /n < 3/ { w = walltimestamp; this->x = walltimestamp; d = this->x - w; } tick-1ms /n < 3/ { printf("%d %d %d\n", d, walltimestamp - w, last < w); last = w; n++; }'
status: 0
stdout:
0 0 1
0 0 1
0 0 1

