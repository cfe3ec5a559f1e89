# dtrace(1) consults DTRACE_OPT_<NAME> only for the options it knows (libdtrace's
# dtrace_setoptenv walks its option tables): an unknown name is ignored silently,
# a known one takes effect.
sh: DTRACE_OPT_NOSUCHOPTION=1 DTRACE_OPT_QUIET=yes DTRACE_OPT_DEBUGASSERT=mutexes $DTRACE -n 'BEGIN { printf("quiet\n"); exit(0); }'
status: 0
stdout:
quiet

stderr:
