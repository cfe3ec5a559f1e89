#ifndef _DTRACE_STAPSDT
#if defined(__LP64__) || defined(_LP64)
#define _DTRACE_ADDR ".8byte "
#define _DTRACE_ARGSZ "-8"
#else
#define _DTRACE_ADDR ".4byte "
#define _DTRACE_ARGSZ "-4"
#endif
/*
 * One probe site: a nop at label 990, and a stapsdt note (type 3,
 * owner "stapsdt") holding the site's address, the .stapsdt.base address
 * (for prelink adjustment), the semaphore's address, then the provider,
 * the probe name and the argument locations ("-8@<operand>" each; on a
 * 32-bit target addresses and arguments are 4 bytes).
 */
#define _DTRACE_STAPSDT(prov, name, sem, argfmt) \
	"990:\tnop\n" \
	"\t.pushsection .note.stapsdt,\"?\",\"note\"\n" \
	"\t.balign 4\n" \
	"\t.4byte 992f-991f, 994f-993f, 3\n" \
	"991:\t.asciz \"stapsdt\"\n" \
	"992:\t.balign 4\n" \
	"993:\t" _DTRACE_ADDR "990b\n" \
	"\t" _DTRACE_ADDR "_.stapsdt.base\n" \
	"\t" _DTRACE_ADDR #sem "\n" \
	"\t.asciz \"" prov "\"\n" \
	"\t.asciz \"" name "\"\n" \
	"\t.asciz \"" argfmt "\"\n" \
	"994:\t.balign 4\n" \
	"\t.popsection\n" \
	".ifndef _.stapsdt.base\n" \
	"\t.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
	"\t.weak _.stapsdt.base\n" \
	"\t.hidden _.stapsdt.base\n" \
	"_.stapsdt.base:\t.space 1\n" \
	"\t.size _.stapsdt.base, 1\n" \
	"\t.popsection\n" \
	".endif\n"
#define _DTRACE_SEMAPHORE(sem) \
	__extension__ unsigned short sem \
	__attribute__((__weak__, __section__(".probes"), __visibility__("hidden")))
#define _DTRACE_ENABLED(sem) \
	__builtin_expect(*(volatile unsigned short *)&(sem) != 0, 0)
#endif
