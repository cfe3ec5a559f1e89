# bufpolicy=ring with a tiny bufsize: each CPU's buffer keeps only the newest
# records that fit in bufsize bytes, sized as DTrace sizes them (a 4-byte
# EPID, then each value at its alignment: printf of one 64-bit value takes
# 16 bytes). Of 10 firings on CPU 0, 48 bytes keep the last 3 and 16 bytes
# the last one; in 8 bytes no record fits, and each one is a drop.
sh: for b in 48 16 8; do "$DTRACE" -x bufpolicy=ring -x bufsize=$b -qn 'syscall::getppid:entry /pid == $target/ { printf("%d\n", (long long)i++); }' -c "taskset -c 0 $T/getppid_loop 10" 2>&1; echo "-- $?"; done
status: 0
stdout:
7
8
9

-- 0
9

-- 0
dtrace: 10 drops on CPU 0

-- 0
