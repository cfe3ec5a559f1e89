# progenyof() walks the current process's ancestors; getmajor/getminor split a
# Linux dev_t (12 bits of major above 20 of minor); rand() varies.
args: -s "$S/subr_proc.d"
status: 0
stdout:
1 1 1 0
ab 12345
1

