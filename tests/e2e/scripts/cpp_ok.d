#!/usr/sbin/dtrace -Cqs
#include "cpp_inc.h"

BEGIN
{
	printf("%d %d\n", N, FOO);
	exit(0);
}
