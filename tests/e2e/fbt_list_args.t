# -lv types fbt's args[] from the function's BTF prototype
# (vfs_read(struct file *, char __user *, size_t, loff_t *)); on return,
# args[1] is the return value, of the function's return type.
args: -lv -n fbt::vfs_read:
status: 0
stdout-has:
		args[0]: struct file *
		args[1]: char *
		args[2]: size_t
		args[3]: loff_t *
		args[0]: int
		args[1]: ssize_t
