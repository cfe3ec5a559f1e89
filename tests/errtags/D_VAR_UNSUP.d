BEGIN
{
	trace(vmlinux`runqueues);
}
