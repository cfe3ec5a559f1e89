# -x iregs: the BPF register file is fixed at libdtrace's 8 registers; fewer is
# "Insufficient registers to generate code", more an invalid value.
sh: $DTRACE -x iregs=8 -qn 'BEGIN { exit(0); }'; echo "8: $?"; $DTRACE -x iregs=7 -qn 'BEGIN { exit(0); }'; echo "7: $?"; $DTRACE -x iregs=9 -qn 'BEGIN { exit(0); }'; echo "9: $?"
status: 0
stdout:

8: 0
7: 1
9: 1
stderr:
dtrace: failed to set -x iregs: Insufficient registers to generate code
dtrace: failed to set -x iregs: Invalid value for specified option
