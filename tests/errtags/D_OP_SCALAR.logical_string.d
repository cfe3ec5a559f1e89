BEGIN
{
	x = "a" && 1;
}
/* "The logical operators may be applied to operands of integer or pointer types" (Dynamic Tracing Guide, "Logical Operators"). */
