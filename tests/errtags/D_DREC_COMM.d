BEGIN
{
	discard(2);
	commit(1);
	trace("late");
}
