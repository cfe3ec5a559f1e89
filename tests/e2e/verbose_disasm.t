# -x verbose prints the compiled programs' disassembly, as -S does.
sh: "$DTRACE" -x verbose -qn 'BEGIN { exit(0); }' 2>&1 | awk '/^program dtrace_begin / { hdr = 1 } /^ *[0-9]+: ([0-9a-f][0-9a-f] ){8}/ { n++ } END { print (hdr && n > 20) ? "disassembled" : "missing" }'
status: 0
stdout:
disassembled
