BEGIN
{
	x = curthread->nosuchmember;
}
