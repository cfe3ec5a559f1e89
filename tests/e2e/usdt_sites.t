# A USDT probe with two sites, whose argument is a different constant at each
# (`-4@$1`, `-4@$2`): both sites fire, each with its own argument.
args: -q -n 'trig$target:::twice { printf("%s %s %d\n", probefunc, probename, arg0); }' -c "$T/usdt_probes"
status: 0
stdout:
main twice 1
main twice 2

