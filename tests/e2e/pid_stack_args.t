# A pid entry probe's arguments beyond the sixth are read from the user stack
# (x86-64 passes six in registers). Each clause reads only the arguments it
# names: arg7 alone, arg0 alone, then arg6 with arg1 (the trampoline loads the
# ones some clause uses, the others read as 0 are never looked at).
args: -q -n 'pid$target:a.out:eight:entry { printf("%d\n", arg7); }' -n 'pid$target:a.out:eight:entry /arg0 == 2/ { printf("two %d %d\n", arg6, arg1); }' -c "$T/stack_args"
status: 0
stdout:
71
72
two 62 12
73

