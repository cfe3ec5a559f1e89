# `timestamp` is read once per probe firing: every read in the firing agrees.
args: -qn 'BEGIN { this->a = timestamp; this->b = timestamp; printf("%d\n", this->b - this->a); } tick-1ms /i++ < 3/ { this->c = timestamp; this->d = timestamp; printf("%d\n", this->d - this->c); } tick-1ms /i > 3/ { exit(0); }'
status: 0
stdout:
0
0
0
0

