BEGIN
{
	trace($nosuch);
}
