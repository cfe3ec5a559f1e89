# ustackdepth, traced or printed, is the number of frames ustack() prints:
# both come from the consumer's CFI unwind of the same stack copy, so a
# program built with -O2 -fomit-frame-pointer (where the kernel's
# frame-pointer walk stops after a frame or two) still agrees. The awk
# counts the frames between the markers and compares them with both values.
sh: d=$(mktemp -d) && cc -O2 -fomit-frame-pointer -o "$d/chain" "$S/ustack_chain.c" && "$DTRACE" -q -n 'syscall::getppid:entry /pid == $target/ { printf("DEPTH %d\n", ustackdepth); trace(ustackdepth); printf("\nBEGIN-STACK"); ustack(); printf("END-STACK\n"); exit(0); }' -c "$d/chain" | awk '/^DEPTH/ { p = $2; next } /^[0-9]+$/ { t = $1; next } /^BEGIN-STACK/ { on = 1; next } /^END-STACK/ { on = 0 } on && NF { n++ } END { print (n > 4 && n == p && n == t) ? "same" : "differ: " p " " t " " n }'; rm -rf "$d"
status: 0
stdout:
same
