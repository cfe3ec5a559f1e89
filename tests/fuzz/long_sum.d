BEGIN
{
	x = arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0 + arg0;
}
