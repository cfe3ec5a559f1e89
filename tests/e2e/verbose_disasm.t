# -x verbose prints the compiled programs' disassembly, as -S does: each clause headed by its probe descriptions, each slot listed by index and byte offset.
sh: "$DTRACE" -x verbose -qn 'BEGIN { exit(0); }' 2>&1 | awk '/^Disassembly of clause :::BEGIN \(epid 1\):$/ { hdr = 1 } /^[0-9][0-9][0-9][0-9] [0-9][0-9][0-9][0-9][0-9]: ([0-9a-f][0-9a-f] ){7}[0-9a-f][0-9a-f]/ { n++ } END { print (hdr && n > 20) ? "disassembled" : "missing" }'
status: 0
stdout:
disassembled
