# bufpolicy=fill counts bufsize in DTrace's record sizes too: printf of one
# 64-bit value takes 16 bytes and END's printf() 16 more, kept back with its
# 8-byte alignment. A 64-byte buffer keeps back 24 and so takes the first two
# of 10 firings on CPU 0; the rest are drops, and END still prints. In 32
# bytes no firing fits.
sh: for b in 64 32; do "$DTRACE" -x bufpolicy=fill -x bufsize=$b -qn 'syscall::getppid:entry /pid == $target/ { printf("%d\n", (long long)i++); } END { printf("end\n"); }' -c "taskset -c 0 $T/getppid_loop 10" 2>&1 | awk '/^dtrace: [0-9]+ drops? on CPU 0$/ { d = 1; next } NF { print } END { print d ? "drops reported" : "no drops" }'; done
status: 0
stdout:
0
1
end
drops reported
end
drops reported
