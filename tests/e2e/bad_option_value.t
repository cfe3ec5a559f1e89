# A bad -x value is a fatal error (exit status 1), worded as dtrace(1).
args: -x bufsize=lots -n 'BEGIN { exit(0); }'
status: 1
stdout:
stderr:
dtrace: failed to set -x bufsize: Invalid value for specified option
