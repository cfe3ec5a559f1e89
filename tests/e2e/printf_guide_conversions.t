# printf conversions as the Solaris Dynamic Tracing Guide's "Conversion Formats"
# describes them: %d/%i print an unsigned argument as an unsigned value ("If the
# argument is unsigned, it will be printed as an unsigned value"), a signed one
# with its sign; %p prints hexadecimal, with 0x only under the # flag ("If the #
# flag is specified, 0x will be prepended to non-zero results").
args: -qn 'BEGIN { printf("%d %i %d %d|%p|%#p|%#p\n", (uint64_t)-1, (uint32_t)-1, (uint8_t)255, (int8_t)-1, (void *)0x1234, (void *)0x1234, (void *)0); exit(0); }'
status: 0
stdout:
18446744073709551615 4294967295 255 -1|1234|0x1234|0

