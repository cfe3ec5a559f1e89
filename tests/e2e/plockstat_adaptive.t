# An adaptive mutex (PTHREAD_MUTEX_ADAPTIVE_NP) spins before it sleeps: each
# of the 19 contended acquisitions spins in vain (the holder keeps the lock
# until the waiter sleeps), then blocks. Plain glibc mutexes never spin.
sh: "$PLOCKSTAT" "$T/lock_contend" 10 adaptive
status: 0
stdout-re:

Mutex block

Count     nsec Lock                         Caller
-{79}
   19 [ \d]{8} lock_contend`biglock         lock_contend`take\+0x[0-9a-f]+

Mutex unsuccessful spin

Count     nsec Lock                         Caller
-{79}
   19 [ \d]{8} lock_contend`biglock         lock_contend`take\+0x[0-9a-f]+
stderr-re:
plockstat: pid \d+ has exited
