# sym()/func()/mod() as aggregation keys: kernel addresses printed as `module`function` (keys merged by function) and as the module.
args: -qn 'BEGIN { a = (uint64_t)&`vfs_read; @f[func(a)] = count(); @f[sym(a + 4)] = count(); @m[mod(a)] = count(); exit(0); }'
status: 0
stdout:

  vmlinux`vfs_read                                                  2
  vmlinux                                                           1
