struct s {
	int a : 3;
};

BEGIN
{
	x = sizeof (((struct s *)0)->a);
}
