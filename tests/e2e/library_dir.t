# -L dir: user D libraries (all *.d, name order, depends_on first) declare inlines and translators for programs.
sh: $DTRACE -L $S/libdir -qn 'BEGIN { printf("%d %d %d %d\n", VIEW_SCALE, curview->pid == pid, curview->scaled == pid * 30, EBADF); exit(0); }'
status: 0
stdout:
30 1 1 9

