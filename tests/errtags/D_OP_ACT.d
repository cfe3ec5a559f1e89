BEGIN
{
	n = 0;
	y = n > 1 ? printf("big") : 0;
}
