# syscall arguments are typed from the syscall's tracepoint format: -lv shows
# openat's (int dfd, const char *filename, int flags, umode_t mode).
args: -lv -n syscall::openat:entry
status: 0
stdout-has:
	Argument Types
		args[0]: int
		args[1]: const char *
		args[2]: int
		args[3]: umode_t
