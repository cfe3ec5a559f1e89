# link_ntop(): an Ethernet (6 bytes) or InfiniBand (20 bytes) address as two lowercase hex digits per byte, separated by colons.
args: -qn 'BEGIN { m = (uint8_t *)alloca(20); m[0] = 0x02; m[1] = 0x1b; m[2] = 0xa0; m[5] = 0xfe; m[19] = 0x7; printf("%s\n%s\n", link_ntop(ARPHRD_ETHER, m), link_ntop(ARPHRD_INFINIBAND, m)); exit(0); }'
status: 0
stdout:
02:1b:a0:00:00:fe
02:1b:a0:00:00:fe:00:00:00:00:00:00:00:00:00:00:00:00:00:07

