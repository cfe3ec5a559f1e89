/* A typedef the program makes twice must name the same type. */
typedef int myint_t;
typedef int myint_t;
typedef long myint_t;

BEGIN
{
	exit(0);
}
