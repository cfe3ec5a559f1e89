# -x tregs=N bounds the keys of a tuple; more is "Insufficient tuple registers to
# generate code", with libdtrace's wording. 7 keys fit in the default 8.
sh: $DTRACE -x tregs=5 -qn 'BEGIN { @[1, 2, 3, 4, 5, 6, 7] = count(); exit(0); }'; echo "status $?"; $DTRACE -qn 'BEGIN { @[1, 2, 3, 4, 5, 6, 7] = count(); exit(0); }'
status: 0
stdout:
status 1

        1        2        3        4        5        6        7                1
stderr:
dtrace: invalid probe specifier BEGIN { @[1, 2, 3, 4, 5, 6, 7] = count(); exit(0); }: Insufficient tuple registers to generate code
