# index, rindex (with a start), strchr, strrchr and strstr; NULL when nothing matches.
sh: $DTRACE -s $S/str_search.d
status: 0
stdout:
3 9 -1 -1
6 0 0 -1 -1
0 -1
[BARfooBAR] [oBAR] [RfooBAR]
null null found

