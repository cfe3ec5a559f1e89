# A macro argument the program never references is an error (D_MACRO_UNUSED,
# "extraneous argument"), unless -x argref is set.
sh: $DTRACE -qn 'BEGIN { exit(0); }' 1234; echo "status $?"; $DTRACE -x argref -qn 'BEGIN { exit(0); }' 1234; echo "argref $?"
status: 0
stdout:
status 1

argref 0
stderr:
dtrace: invalid probe specifier BEGIN { exit(0); }: extraneous argument '1234' ($1 is not referenced)
