# trace() of a struct or of a char array prints the hex-and-ASCII dump.
args: -qn 'struct pair { int a; char b[4]; } p; BEGIN { p.a = 0x41424344; p.b[0] = 0x7a; trace(p); exit(0); }'
status: 0
stdout:

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 44 43 42 41 7a 00 00 00                          DCBAz...

