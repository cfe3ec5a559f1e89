/* An inline of struct or union type naming a variable reads that variable. */
struct point {
	char tag;
	int x;
};

union word {
	char c;
	int i;
};

struct point here;
inline struct point there = here;
union word w;
inline union word alias = w;

BEGIN
{
	here.tag = 'p';
	here.x = 12;
	w.c = 'q';
	printf("%c %d %c\n", there.tag, there.x, alias.c);
	exit(0);
}
