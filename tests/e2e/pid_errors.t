# pid descriptions that cannot be made are errors with libdtrace's D_PROC_* tags
# and wording: a function missing from a named module, an offset past the
# function's end, and an offset inside an instruction (the function's first
# instruction is longer than one byte: `work` is not a one-byte `ret`).
sh: for d in 'pid$target:a.out:nosuch:entry' 'pid$target:a.out:work:1000' 'pid$target:a.out:work:1' 'pid$target:libc:-:10' 'pid$target::-:1*'; do $DTRACE -xerrtags -n "$d {}" -c "$T/pid_calls"; echo "status $?"; done 2>&1 | sed 's/pid[0-9]*:/pidN:/'
status: 0
stdout:
dtrace: invalid probe specifier pid$target:a.out:nosuch:entry {}: [D_PROC_FUNC] failed to lookup 'nosuch' in module 'a.out'
status 1
dtrace: invalid probe specifier pid$target:a.out:work:1000 {}: [D_PROC_OFF] offset 0x1000 outside of function 'work'
status 1
dtrace: invalid probe specifier pid$target:a.out:work:1 {}: [D_PROC_ALIGN] offset 0x1 is not aligned on an instruction
status 1
dtrace: invalid probe specifier pid$target:libc:-:10 {}: [D_PROC_LIB] only the a.out module is valid with the '-' function
status 1
dtrace: invalid probe specifier pid$target::-:1* {}: [D_PROC_NAME] only individual addresses may be specified with the '-' function
status 1
