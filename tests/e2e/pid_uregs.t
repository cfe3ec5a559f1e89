# uregs[] in a pid probe: the user registers at the function's entry, named by
# regs.d's R_* constants (R_RDI, R_RSI: the first two arguments); an i386 name
# reads the register it extends (R_EAX is R_RAX), R_PC is the instruction pointer.
args: -q -n 'pid$target:a.out:work:entry { printf("%d %d %d %d\n", uregs[R_RDI], uregs[R_RSI], uregs[R_EAX] == uregs[R_RAX], uregs[R_PC] == uregs[R_RIP]); }' -c "$T/pid_calls"
status: 0
stdout:
0 0 1 1
1 10 1 1
2 20 1 1
3 30 1 1
4 40 1 1

