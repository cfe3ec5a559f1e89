#include "cpp_inc.h"
#define TWICE(x) ((x) + (x))

BEGIN
{
	x = TWICE("a");
}
