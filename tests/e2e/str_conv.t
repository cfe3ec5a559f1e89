# lltostr and strtoll, in base 10 and other bases.
sh: $DTRACE -s $S/str_conv.d
status: 0
stdout:
[0] [1234567890123] [-42] [-9223372036854775808]
[0xff] [0x0] [010] [101] [z]
1234 -77 12 0
255 31 511 35
-123456

