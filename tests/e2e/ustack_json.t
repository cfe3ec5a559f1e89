# -O json: a traced ustack() is its own output element, {"ustack-frames": [...]},
# each frame {symbol, module, name, offset} as kernel stack-frames are; the
# frames are the CFI-unwound ones the text output prints (main -> a -> b -> c).
sh: d=$(mktemp -d) && cc -O2 -fomit-frame-pointer -o "$d/chain" "$S/ustack_chain.c" && "$DTRACE" -O json -q -n 'syscall::getppid:entry /pid == $target/ { ustack(); exit(0); }' -c "$d/chain" | grep -o -E '"ustack-frames"|"symbol":"chain`(a|b|c|main)\+0x[0-9a-f]+","module":"chain","name":"(a|b|c|main)","offset":"0x[0-9a-f]+"' | sed -E 's/0x[0-9a-f]+/0xN/g'; rm -rf "$d"
status: 0
stdout:
"ustack-frames"
"symbol":"chain`c+0xN","module":"chain","name":"c","offset":"0xN"
"symbol":"chain`b+0xN","module":"chain","name":"b","offset":"0xN"
"symbol":"chain`a+0xN","module":"chain","name":"a","offset":"0xN"
"symbol":"chain`main+0xN","module":"chain","name":"main","offset":"0xN"
