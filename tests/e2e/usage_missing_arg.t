# A missing option argument prints the usage and exits 2.
args: -n
status: 2
stdout:
stderr-has:
dtrace: option requires an argument -- 'n'
