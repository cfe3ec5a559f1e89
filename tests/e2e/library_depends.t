# Library dependencies are checked when dtrace loads the -L libraries, whatever
# the program: a cycle of `depends_on library` pragmas, or a dependency on a
# library that does not exist, is an error (D_PRAGMA_DEPEND).
sh: $DTRACE -L $S/libdep_cycle -e -n 'BEGIN { exit(0); }'; echo "cycle $?"; $DTRACE -L $S/libdep_missing -e -n 'BEGIN { exit(0); }'; echo "missing $?"
status: 0
stdout:
cycle 1
missing 1
stderr-re:
dtrace: failed to compile library .*/libdep_cycle/b\.d: line 1: cyclic dependency on library .*/libdep_cycle/a\.d
dtrace: failed to compile library .*/libdep_missing/c\.d: line 1: failed to find library absent\.d, a dependency of .*/libdep_missing/c\.d
