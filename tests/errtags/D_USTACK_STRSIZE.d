BEGIN
{
	/* The string space of a user stack cannot be negative. */
	ustack(5, -1);
}
