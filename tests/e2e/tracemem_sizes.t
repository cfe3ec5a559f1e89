# tracemem(addr, size) dumps size bytes; with a third argument only that many
# are printed (at most size).
args: -qn 'struct s { char c[8]; } v; BEGIN { v.c[0] = 0x61; v.c[1] = 0x62; v.c[2] = 0x63; tracemem(&v, 8); tracemem(&v, 8, 2); tracemem(&v, 8, 100); exit(0); }'
status: 0
stdout:

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 61 62 63 00 00 00 00 00                          abc.....

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 61 62                                            ab

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 61 62 63 00 00 00 00 00                          abc.....

