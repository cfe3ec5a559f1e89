# %T prints a time as RFC 822 dates have it (strftime's "%a, %d %b %G %T %Z") in the TZ zone; the year is the ISO week-numbering year, as date(1) prints %G.
sh: TZ=US/Pacific $DTRACE -qn 'BEGIN { printf("%T|\n%T|\n", (uint64_t)1000000000 * 1000000000, (uint64_t)1609459200 * 1000000000); exit(0); }'
status: 0
stdout:
Sat, 08 Sep 2001 18:46:40 PDT|
Thu, 31 Dec 2020 16:00:00 PST|

