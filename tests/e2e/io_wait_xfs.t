# io:::wait-start and io:::wait-done fire in the thread that waits for a
# buffer's I/O, before and after the wait (here XFS's, the kernel's one event
# pair around a synchronous I/O): every start is followed by a done in the same
# thread, reads (mounting) and writes (relabelling) are told apart by b_flags,
# the wait takes time, the size is whole 512-byte blocks, and devinfo_t names
# the loop device (major 7) the file system is on.
sh: bash "$S/io_xfs_wait.sh" 'io:::wait-start /args[1]->dev_statname == "DEVNAME"/ { self->ts = timestamp; self->w = args[0]->b_flags & B_WRITE; starts[self->w != 0]++; } io:::wait-done /self->ts && args[1]->dev_statname == "DEVNAME"/ { dones[(args[0]->b_flags & B_WRITE) != 0]++; waited += timestamp > self->ts; whole += args[0]->b_bcount % 512 == 0 && args[0]->b_bcount > 0; major = args[1]->dev_major; self->ts = 0; } END { printf("read %s\nwrite %s\n", starts[0] > 0 && starts[0] == dones[0] ? "paired" : "unpaired", starts[1] > 0 && starts[1] == dones[1] ? "paired" : "unpaired"); printf("waited %s\n", waited == dones[0] + dones[1] ? "all" : "not all"); printf("whole %s\n", whole == dones[0] + dones[1] ? "all" : "not all"); printf("major %d\n", major); }'
status: 0
stdout:
read paired
write paired
waited all
whole all
major 7

timeout: 60
