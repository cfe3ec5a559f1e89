# discard() drops a speculation's records; once the consumer has seen the
# discard, the ID is free for speculation() again.
args: -qn 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("never printed\n"); } BEGIN { discard(s); printf("discarded %d\n", s); } tick-100ms { printf("reused %d\n", speculation()); exit(0); }'
status: 0
stdout:
discarded 1
reused 1

stderr:
