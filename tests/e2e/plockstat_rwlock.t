# plockstat -C on a read-write lock: a writer and a reader take turns, each
# waiting for the other (10 rounds each: the reader waits 10 times, the
# writer 9). Sections in plockstat's order: reader block, then writer block.
sh: "$PLOCKSTAT" -C "$T/lock_contend" 10 rwlock
status: 0
stdout-re:

R/W reader block

Count     nsec Lock                         Caller
-{79}
   10 [ \d]{8} lock_contend`bigrw           lock_contend`take\+0x[0-9a-f]+

R/W writer block

Count     nsec Lock                         Caller
-{79}
    9 [ \d]{8} lock_contend`bigrw           lock_contend`take\+0x[0-9a-f]+
stderr-re:
plockstat: pid \d+ has exited
