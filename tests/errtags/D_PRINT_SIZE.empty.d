/* print() of a pointer to a struct whose size is zero: nothing to record. */
struct nothing { int z[0]; };
BEGIN
{
	p = (struct nothing *)alloca(8);
	print(p);
}
