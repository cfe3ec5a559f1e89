#pragma D option nspec=-2

BEGIN
{
	trace(speculation());
}
