BEGIN
{
	@a = sum("x");
}
/* Message and tag as libdtrace's dt_compile_agg() raises them: the value must be scalar. */
