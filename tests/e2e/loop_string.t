# A loop over a string's characters up to its length counts the o's.
args: -qn 'BEGIN { s = "hello, world"; n = strlen(s); for (i = 0; i < n; i++) if (s[i] == 0x6f) o++; printf("%d of %d\n", o, n); exit(0); }'
status: 0
stdout:
2 of 12

