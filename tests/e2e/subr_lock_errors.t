# A lock subroutine takes a pointer to a Linux lock, not a string.
args: -qn 'BEGIN { trace(mutex_owned("nope")); }'
status: 1
stderr:
dtrace: invalid probe specifier BEGIN { trace(mutex_owned("nope")); }: mutex_owned( ) argument #1 is incompatible with prototype:
	prototype: struct mutex *
	 argument: string
