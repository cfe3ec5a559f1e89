/*
 * Calls strdup, which glibc exports under two names at one address (a weak
 * strdup and a global __strdup); strdup calls malloc. Used to check which
 * of the aliases a user symbol is named by.
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char *s = strdup("alias");

	free(s);
	return 0;
}
