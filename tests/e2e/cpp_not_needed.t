# Without -C no preprocessor is run (here none could be found on PATH).
sh: PATH=/nonexistent "$DTRACE" -qs "$S/quiet.d"
status: 0
stdout:
quiet

