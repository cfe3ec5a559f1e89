# io:::start fires as each block request is issued, args[0] its bufinfo_t and
# args[1] its devinfo_t, translated from the kernel's struct request: the
# bytes the requests written to a fresh loop device carry add up to the 64 x
# 4096 bytes dd writes with O_DIRECT (whatever the block layer merges), and
# io:::done sees the same device.
sh: bash "$S/io_loop.sh" 'io:::start /args[1]->dev_statname == "DEVNAME" && (args[0]->b_flags & B_WRITE)/ { @[args[1]->dev_statname, args[1]->dev_major] = sum(args[0]->b_bcount); } io:::done /args[1]->dev_statname == "DEVNAME" && (args[0]->b_flags & B_WRITE)/ { done = 1; } END { printa("%s %d %@d\n", @); printf("done %d\n", done); }'
status: 0
stdout-re:
loop[0-9]+ 7 262144
done 1

