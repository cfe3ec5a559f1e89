struct s {
	int a : 3;
};

BEGIN
{
	x = &((struct s *)0)->a;
}
