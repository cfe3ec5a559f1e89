# Among several symbols at one address, a user address is named as libproc
# names it: glibc's weak strdup rather than its global alias __strdup (fewer
# leading underscores win between global and weak names). ufunc(ucaller) in
# malloc, called from strdup, names the caller.
sh: d=$(mktemp -d) && cc -O0 -o "$d/alias" "$S/alias_strdup.c" && "$DTRACE" -q -n 'pid$target::strdup:entry { self->in = 1; } pid$target:libc.so.6:malloc:entry /self->in/ { ufunc(ucaller); exit(0); } pid$target::strdup:return { self->in = 0; }' -c "$d/alias" | sed -e 's/ *$//' -e '/^$/d'; rm -rf "$d"
status: 0
stdout:
  libc.so.6`strdup
