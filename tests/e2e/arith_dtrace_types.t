# D's arithmetic as libdtrace types it: no promotion to int first (unsigned char
# plus char is an unsigned char, so 254 + 3 wraps to 1); a chain of int
# operations keeps 64-bit intermediate values until the result is stored
# (100000 * 100000 / 100000 is 100000, not C's 14100); a remainder is negative
# exactly when the operands' signs differ, folded or computed at run time.
args: -qn 'unsigned char C; char c; int i; BEGIN { C = 254; c = 3; i = 100000; i = i * i / i; x = 19; y = 5; printf("%d %d %d %d %d %d\n", C + c, i, 19 % -5, -19 % -5, x % -y, -x % y); exit(0); }'
status: 0
stdout:
1 100000 -4 4 -4 -4

