# plockstat -H: hold times of a read-write lock, readers and writers apart
# (10 read holds, 10 write holds), released in give().
sh: "$PLOCKSTAT" -H "$T/lock_contend" 10 rwlock | grep -A 4 '^R/W'
status: 0
stdout-re:
R/W reader hold

Count     nsec Lock                         Caller
-{79}
   10 [ \d]{8} lock_contend`bigrw           lock_contend`give\+0x[0-9a-f]+
--
R/W writer hold

Count     nsec Lock                         Caller
-{79}
   10 [ \d]{8} lock_contend`bigrw           lock_contend`give\+0x[0-9a-f]+
