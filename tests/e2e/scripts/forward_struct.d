struct s;
struct t {
	struct s a;
};

BEGIN
{
	exit(0);
}
