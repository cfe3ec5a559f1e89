/* A declaration is checked as soon as it is read, before a later syntax error. */
struct holder {
	struct later l;
};

BEGIN
{
	x = (;
}
