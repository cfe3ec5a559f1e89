BEGIN
{
	printf("%s|%-*s|\n", "left");
}
