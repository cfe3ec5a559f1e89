BEGIN
{
	x = stringof(*curthread);
}
