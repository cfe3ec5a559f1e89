# -x aggfmt=folded: a stack-keyed aggregation prints one line per stack, root first, frames module`function without offsets, then the count; the counts add up to the -c command's getppid() calls.
sh: "$DTRACE" -x aggfmt=folded -qn 'syscall::getppid:entry /pid == $target/ { @[stack()] = count(); }' -c "$T/getppid_loop 20" | awk 'NF { n++; if ($0 !~ /^[^ ;+]+(;[^ ;+]+)* [0-9]+$/) bad++; if ($0 ~ /^vmlinux`/) root++; c += $NF } END { printf("%s %d bad, %s from vmlinux, %d calls\n", (n > 0) ? "lines" : "none", bad, (root == n) ? "all" : "not all", c) }'
status: 0
stdout:
lines 0 bad, all from vmlinux, 20 calls
