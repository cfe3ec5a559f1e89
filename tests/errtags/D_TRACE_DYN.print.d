BEGIN
{
	@a = count();
	print(@a);
}
/* Message and tag as libdtrace's trace()/print() checks (dt_cc.c) raise them. */
