# trace() prints a value by its type: narrow signed types keep their sign,
# unsigned maxima print unsigned; widths 3, 5, 10 and 19 by size.
args: -n 'BEGIN { trace((int8_t)-1); trace((uint16_t)-1); trace((int32_t)-1); trace((uint32_t)-1); trace((uint64_t)-1); trace((short)-2); exit(0); }'
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+      1                           :BEGIN   -1 65535         -1 4294967295 18446744073709551615    -2

stderr:
dtrace: description 'BEGIN ' matched 1 probe
