#include <stdio.h>

BEGIN
{
}
