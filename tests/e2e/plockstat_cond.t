# A condition wait takes its mutex back before it returns: when the signaller
# still holds the mutex, that is a mutex block, charged to the condition
# wait's caller (10 rounds: 10 blocks in await_signal). The futex waits on the
# condition variable itself are not lock contention.
sh: "$PLOCKSTAT" -C "$T/lock_contend" 10 cond
status: 0
stdout-re:

Mutex block

Count     nsec Lock                         Caller
-{79}
   10 [ \d]{8} lock_contend`biglock         lock_contend`await_signal\+0x[0-9a-f]+
stderr-re:
plockstat: pid \d+ has exited
