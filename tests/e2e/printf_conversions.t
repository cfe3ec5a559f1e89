# printf conversions, widths and flags, as C's printf (Dynamic Tracing Guide, printf).
args: -qn 'BEGIN { printf("hello %s %d|%5d|%-5d|%05d|%x|%X|%o|%c|%%|%+d|% d\n", "world", 42, 42, 42, 42, 255, 255, 8, 65, 7, 7); exit(0); }'
status: 0
stdout:
hello world 42|   42|42   |00042|ff|FF|10|A|%|+7| 7

