# A USDT probe that is not traced leaves its semaphore at 0: the trigger's
# guarded probe never runs, and it exits 0 (3 if it had seen it enabled).
args: -n 'trig$target:::step { @ = count(); }' -c "$T/usdt_probes"
status: 0
stdout-re:

                4
stderr-re:
dtrace: description 'trig\$target:::step ' matched 1 probe
dtrace: pid [0-9]+ has exited
