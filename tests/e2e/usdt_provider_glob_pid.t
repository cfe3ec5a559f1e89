# A provider glob with a process ID matches the process's pid provider as
# well as its USDT providers: `*[py]` names pid's entry probe of step() and
# trig's USDT probe step (not return or offsets), so each call shows both.
args: -q -n '*$target::step:*[py] { printf("%s %s\n", probefunc, probename); }' -c "$T/usdt_probes"
status: 0
stdout:
step entry
step step
step entry
step step
step entry
step step
step entry
step step

