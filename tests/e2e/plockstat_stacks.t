# plockstat -s depth: each row with its own legend (after the rule) and a
# histogram of its times beside its stack, "%10s ---- Time Distribution ---
# %5s %s" (nsec count Stack); the bucket lines vary with timing.
sh: "$PLOCKSTAT" -s 3 "$T/lock_contend" 10 | head -8
status: 0
stdout-re:

Mutex block

-{79}
Count     nsec Lock                         Caller
   19 [ \d]{8} lock_contend`biglock         lock_contend`take\+0x[0-9a-f]+

      nsec ---- Time Distribution --- count Stack
