# A stripped program (no .symtab, no .dynsym entries for its functions) whose
# function symbols are only in MiniDebugInfo (.gnu_debugdata: an xz-compressed
# ELF holding a symbol table, as Fedora ships) still gets named frames.
sh: d=$(mktemp -d) && cd "$d" && cc -O2 -fomit-frame-pointer -o chain "$S/ustack_chain.c" && objcopy --only-keep-debug chain full.debug && printf 'a\nb\nc\nmain\n' > keep && objcopy -S --keep-symbols=keep full.debug mini && xz mini && strip --strip-all chain && objcopy --add-section .gnu_debugdata=mini.xz chain && nm chain 2>&1 | grep -c 'no symbols' && "$DTRACE" -q -n 'syscall::getppid:entry /pid == $target/ { ustack(); exit(0); }' -c ./chain | sed -E 's/\+0x[0-9a-f]+$//' | grep -E '^ +chain`(a|b|c|main)$'; cd /; rm -rf "$d"
status: 0
stdout:
1
              chain`c
              chain`b
              chain`a
              chain`main
