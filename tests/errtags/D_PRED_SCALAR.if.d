BEGIN
{
	if (*curthread) {
		x = 1;
	}
}
