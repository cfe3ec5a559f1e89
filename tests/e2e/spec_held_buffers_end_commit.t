# A speculation still active when held buffers are printed is committed by END.
sh: for p in ring fill; do "$DTRACE" -x bufpolicy=$p -qn 'BEGIN { n = 0; } tick-40ms /n == 1/ { exit(0); } tick-40ms /n == 0/ { s = speculation(); speculate(s); printf("%s: kept for END\n", $$1); n++; } END { commit(s); }' $p 2>&1; done
status: 0
stdout:
ring: kept for END

fill: kept for END

