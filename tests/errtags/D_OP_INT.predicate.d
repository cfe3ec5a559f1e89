/*
 * A binary operator's error is on the line of the token after its right
 * operand: for a predicate, the line after the closing slash.
 */
BEGIN
/1 &
    "x"/
{
	exit(0);
}
