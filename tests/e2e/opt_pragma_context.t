# Options that shape the preprocessor or the link cannot be set by the program
# they would apply to: libdtrace's EDT_BADOPTCTX, with the value in the message.
sh: printf '#pragma D option ldpath=/nonexistent\nBEGIN { exit(0); }\n' > "$T/ctx.d"; cd "$T" && $DTRACE -x errtags -s ctx.d
status: 1
stdout:
stderr:
dtrace: failed to compile script ctx.d: [D_PRAGMA_OPTSET] line 1: failed to set option 'ldpath' to '/nonexistent': Option cannot be used from within a D program
