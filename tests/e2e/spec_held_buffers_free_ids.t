# Under bufpolicy=ring and fill, a commit or discard frees its speculation while
# tracing goes on (DTrace commits into the principal buffer, or throws the data
# away, when it happens), so one speculation buffer serves firing after firing.
# Committed lines print at the end; discarded ones never.
sh: for p in ring fill; do echo "$p:"; "$DTRACE" -x bufpolicy=$p -x nspec=1 -qn 'BEGIN { n = 0; } tick-40ms /n >= 6/ { exit(0); } tick-40ms /n < 6/ { s = speculation(); speculate(s); printf("spec %d in %d\n", n, s); } tick-40ms /n < 6 && n % 2 == 0/ { commit(s); } tick-40ms /n < 6 && n % 2 == 1/ { discard(s); } tick-40ms /n < 6/ { n++; }' 2>&1; done
status: 0
stdout:
ring:
spec 0 in 1
spec 2 in 1
spec 4 in 1

fill:
spec 0 in 1
spec 2 in 1
spec 4 in 1

