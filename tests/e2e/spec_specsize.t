# A speculative record that would take a speculation past specsize is dropped and
# counted ("speculative drops"); what fitted is still committed.
args: -x specsize=40 -qn 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("kept %d\n", 1); } BEGIN { speculate(s); printf("dropped %d\n", 2); } BEGIN { commit(s); } BEGIN { exit(0); }'
status: 0
stdout:
kept 1

stderr:
dtrace: 1 speculative drop
