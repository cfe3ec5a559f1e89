# A description that matches nothing is an error.
args: -n 'nosuch:::probe'
status: 1
stdout:
stderr:
dtrace: invalid probe specifier nosuch:::probe: probe description nosuch:::probe does not match any probes
