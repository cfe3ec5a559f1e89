/* There are 42 register numbers on x86_64. */
BEGIN
{
	trace(uregs[R_ESP + 2]);
}
