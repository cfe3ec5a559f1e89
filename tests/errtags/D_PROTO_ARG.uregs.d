/* uregs[] takes an integer constant index (a register named by regs.d). */
BEGIN
{
	i = 3;
	trace(uregs[i]);
}
