# -o appends trace output to a file.
sh: f=$(mktemp); "$DTRACE" -qn 'BEGIN { printf("to file\n"); exit(0); }' -o "$f" && cat "$f"; rm -f "$f"
status: 0
stdout:
to file

