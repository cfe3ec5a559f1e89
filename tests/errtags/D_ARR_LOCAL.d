/* Clause-local variables are scalars only. */
BEGIN
{
	this->a[1, 2] = 3;
}
