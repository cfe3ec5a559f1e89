BEGIN
{
	@a = count();
	trace(@a);
}
/* An aggregation is a dynamic expression: trace() cannot record it. */
