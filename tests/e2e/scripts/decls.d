/*
 * D declarations: a struct laid out by DTrace's rules, a typedef, an
 * enum, inlines and typed variables.
 */
struct rec {
	char c;		/* 0 */
	int i;		/* 4 */
	short s;	/* 8 */
	long l;		/* 16 */
	char name[5];	/* 24..28 */
	unsigned int a : 3, b : 7;	/* bytes 29 and 30, one each */
	struct rec *next;	/* 32 */
};			/* size 40 */
typedef struct rec rec_t;
enum color { RED, GREEN = 5, BLUE };
inline int SIX = 3 * 2;
inline string HELLO = "hello";
int total;
self int depth;
this string tmp;
int arr[string, int];

BEGIN
{
	printf("%d %d %d %d %d %d %d\n", sizeof (struct rec), offsetof(struct rec, i),
	    offsetof(struct rec, s), offsetof(struct rec, l),
	    offsetof(struct rec, name), offsetof(struct rec, next), sizeof (rec_t));
	printf("%d %d %d %d %s %d\n", RED, GREEN, BLUE, SIX, HELLO, sizeof (enum color));
	total += SIX;
	arr["a", 1] = 7;
	this->tmp = HELLO;
	self->depth++;
	@q = lquantize(3, 0, SIX, 2);
	printf("%d %d %s %d\n", total, arr["a", 1], this->tmp, self->depth);
	printf("%d %d\n", sizeof (struct task_struct) > 0, sizeof (rec_t *));
	exit(0);
}
