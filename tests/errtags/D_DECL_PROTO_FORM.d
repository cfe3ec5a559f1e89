/* An inline with parameters names each of them (its prototype gives their formals). */
inline int f[int] = 1;

BEGIN
{
	exit(0);
}
