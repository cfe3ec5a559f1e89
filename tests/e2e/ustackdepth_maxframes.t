# maxframes caps every user stack, and ustackdepth with it: at most that
# many frames print and are counted (it defaults to the kernel's
# perf_event_max_stack, the most bpf_get_stack gives).
sh: d=$(mktemp -d) && cc -O2 -fomit-frame-pointer -o "$d/chain" "$S/ustack_chain.c" && "$DTRACE" -q -x maxframes=3 -n 'syscall::getppid:entry /pid == $target/ { printf("DEPTH %d\n", ustackdepth); ustack(); exit(0); }' -c "$d/chain" | sed -E 's/\+0x[0-9a-f]+$//; /^$/d'; rm -rf "$d"
status: 0
stdout:
DEPTH 3
              libc.so.6`syscall
              chain`c
              chain`b
