# %Y prints a walltime in the local time zone, honouring TZ.
sh: TZ=US/Pacific exec "$DTRACE" -qn 'BEGIN { printf("%Y|%Y\n", (uint64_t)0, (uint64_t)1062609821 * 1000000000); exit(0); }'
status: 0
stdout:
1969 Dec 31 16:00:00|2003 Sep  3 10:23:41

