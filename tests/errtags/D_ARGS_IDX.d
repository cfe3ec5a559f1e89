syscall::read:entry
{
	trace(args[10]);
}
