BEGIN
{
	x = &1;
}
/* Message and tag as libdtrace raises them for & applied to a non-lvalue (dt_parser.c). */
