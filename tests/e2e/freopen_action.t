# freopen() sends later output to a file (appending); "" restores stdout.
sh: f=$(mktemp); "$DTRACE" -wqn "BEGIN { printf(\"one\n\"); freopen(\"$f\"); printf(\"two\n\"); freopen(\"\"); printf(\"three\n\"); exit(0); }" 2>/dev/null; cat "$f"; rm -f "$f"
status: 0
stdout:
one
three

two
