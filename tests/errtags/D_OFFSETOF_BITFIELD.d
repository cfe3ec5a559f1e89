struct s {
	int a : 3;
};

BEGIN
{
	x = offsetof(struct s, a);
}
