struct out { int a; };

BEGIN
{
	trace(xlate<struct out>(1).a);
}
