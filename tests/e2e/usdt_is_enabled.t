# Tracing an is-enabled USDT probe sets its semaphore (the kernel counts it
# through the uprobe's reference counter): the trigger sees it enabled and
# exits 3; dtrace reports the status as dtrace(1) does.
args: -n 'trig$target:::step-done { @ = count(); }' -c "$T/usdt_probes"
status: 0
stdout-re:

                4
stderr-re:
dtrace: description 'trig\$target:::step-done ' matched 1 probe
dtrace: pid [0-9]+ exited with status 3
