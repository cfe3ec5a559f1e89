# -Z permits descriptions that match no probes.
args: -Zq -n 'nosuch:::probe { }' -n 'BEGIN { printf("ok\n"); exit(0); }'
status: 0
stdout:
ok

