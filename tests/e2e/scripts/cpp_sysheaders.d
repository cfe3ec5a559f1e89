/*
 * System headers under -C: <stdint.h> redeclares D's own integer typedefs
 * in the C scope, and <endian.h> gives the byte order without GCC's inline
 * functions (cpp runs as ISO C, with __GNUC__ undefined).
 */
#include <stdint.h>
#include <endian.h>
#include <limits.h>

int64_t big;
uint16_t port;

BEGIN
{
	big = INT64_MAX;
	port = htons(0x1234);
#if __BYTE_ORDER == __LITTLE_ENDIAN
	printf("little %x\n", port);
#else
	printf("big %x\n", port);
#endif
	printf("%d %d %d\n", sizeof (int64_t), sizeof (uintptr_t), big == INT64_MAX);
#if defined(__linux) && defined(__unix) && defined(__SVR4) && defined(__Linux)
	printf("linux unix svr4\n");
#endif
#if defined(__SUNW_D) && defined(__SUNW_D_64) && __SUNW_D_VERSION >= 0x02000000
	printf("D %d\n", __SUNW_D);
#endif
#ifdef __GNUC__
	printf("gnuc\n");
#endif
	exit(0);
}
