# The Solaris Dynamic Tracing Guide's printa() example ("Output Formatting",
# printa.d: `printa("%@8u %a\n", @a)` in END, without -q) prints the formatted rows
# straight after the END probe line: `  1      2                             :END        1 0x1`.
# Keys here are the address 1, which no symbol covers, so %a prints it in hex.
args: -n 'BEGIN { @a[(uintptr_t)1] = count(); exit(0); } END { printa("%@8u %a\n", @a); }'
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+      1                           :BEGIN 
 +[0-9]+      2                             :END        1 0x1


stderr-re:
dtrace: description 'BEGIN ' matched 2 probes
