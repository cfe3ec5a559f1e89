# plockstat -A on two threads taking turns on one mutex, 10 rounds each: every
# acquisition but the first waits for the other thread (the holder keeps the
# lock until the waiter sleeps in the kernel), so 20 holds and 19 blocks.
# Layout (Solaris plockstat): each section's title between blank lines, the
# legend "%5s %8s %-28s %s" (Count nsec Lock Caller), a 79-dash rule, then rows
# "%5u %8u %-28s %s" hottest first; the lock named by its variable, the caller
# by its return address (module`function+0xoff). -n 1: one row per section.
sh: "$PLOCKSTAT" -A -n 1 "$T/lock_contend" 10
status: 0
stdout-re:

Mutex hold

Count     nsec Lock                         Caller
-{79}
   20 [ \d]{8} lock_contend`biglock         lock_contend`give\+0x[0-9a-f]+

Mutex block

Count     nsec Lock                         Caller
-{79}
   19 [ \d]{8} lock_contend`biglock         lock_contend`take\+0x[0-9a-f]+
stderr-re:
plockstat: pid \d+ has exited
