# printf's * width and precision come from arguments; a negative width
# left-aligns; a string precision of 0 sets no limit; %S escapes.
args: -qn 'BEGIN { printf("[%*d][%-*d][%.*s][%*.*s][%0.0s][%S]\n", 5, 42, 4, 7, 2, "hello", 6, 3, "hello", "abc", "a\tb\"c"); exit(0); }'
status: 0
stdout:
[   42][7   ][he][   hel][abc][a\tb\"c]

