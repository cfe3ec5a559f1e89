# A string plus an integer (either order) is the string from that byte on, as
# pointer arithmetic on the string; past its end it is "".
args: -qn 'BEGIN { g = "abcdefgh"; this->l = "12"; printf("%s|%s|%s|%s|\n", g + 1, 3 + g, this->l + 1, g + 40); exit(0); }'
status: 0
stdout:
bcdefgh|defgh|2||

