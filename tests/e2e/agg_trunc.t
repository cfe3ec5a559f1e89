# (The first tick waits 200 ms, so that the consumer has printed BEGIN's records, which read the aggregation as it is when they are consumed.)
# trunc(@, n) keeps the n largest values, trunc(@, -n) the n smallest, trunc(@) none; each takes effect where the record stream reaches it, and removed keys stay removed in the kernel (a later sum() starts from zero).
args: -qn 'BEGIN { @[1] = sum(10); @[2] = sum(20); @[3] = sum(30); @[4] = sum(40); trunc(@, 2); printa(@); trunc(@, -1); printa(@); } tick-10ms /n++ == 20/ { @[5] = sum(5); @[3] = sum(1); printa(@); trunc(@); } tick-10ms /n == 23/ { exit(0); } END { @[6] = sum(6); printa(@); }'
status: 0
stdout:

        3               30
        4               40

        3               30

        5                5
        3               31

        6                6

