# An unknown -x option name is a fatal error.
args: -x nosuchoption -n 'BEGIN { exit(0); }'
status: 1
stdout:
stderr:
dtrace: failed to set -x nosuchoption: Invalid option name
