/*
 * Functions with known return sites, for the pid provider's return arg0 (the
 * offset in the function of the instruction it returned by). Written in
 * assembly so that the offsets do not depend on the compiler:
 *   pick(x): 0x0 cmp $1,%rdi (4 bytes); 0x4 jne (2); 0x6 mov $10,%eax (5);
 *            0xb ret; 0xc lea 3(%rdi),%rax (4); 0x10 ret
 *   tail(x): 0x0 add $1,%rdi (4 bytes); 0x4 jmp pick (a tail call)
 * main calls pick(1), pick(5), then tail(0) (which returns through pick's
 * ret at 0xb).
 */
__asm__(".text\n"
	".globl pick\n.type pick,@function\npick:\n"
	"\tcmp $1,%rdi\n\tjne 1f\n\tmovl $10,%eax\n\tret\n"
	"1:\tlea 3(%rdi),%rax\n\tret\n.size pick,.-pick\n"
	".globl tail\n.type tail,@function\ntail:\n"
	"\tadd $1,%rdi\n\tjmp pick\n.size tail,.-tail\n");

long pick(long);
long tail(long);

int main(void)
{
	long s = pick(1) + pick(5) + tail(0);

	return s == 28 ? 0 : 1;
}
