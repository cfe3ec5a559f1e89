/* uregs[] takes only a constant register number. */
BEGIN
{
	r = R_PC;
	trace(uregs[r]);
}
