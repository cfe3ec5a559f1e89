# tracemem(addr, size) dumps size bytes; with a third argument only that many
# are printed (at most size).
# (The bytes are in scratch memory: a D variable has no address D may take.)
args: -qn 'BEGIN { p = (char *)alloca(8); p[0] = 0x61; p[1] = 0x62; p[2] = 0x63; p[3] = 0; p[4] = 0; p[5] = 0; p[6] = 0; p[7] = 0; tracemem(p, 8); tracemem(p, 8, 2); tracemem(p, 8, 100); exit(0); }'
status: 0
stdout:

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 61 62 63 00 00 00 00 00                          abc.....

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 61 62                                            ab

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 61 62 63 00 00 00 00 00                          abc.....

