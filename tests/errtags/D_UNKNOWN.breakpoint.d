BEGIN
{
	/* Linux has no kernel debugger entry from BPF. */
	breakpoint();
}
