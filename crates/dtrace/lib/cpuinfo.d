/*
 * cpuinfo.d: curcpu, the current CPU as the Dynamic Tracing Guide describes it
 * ("Built-in Variables": `cpuinfo_t *curcpu`), and the constants of the fault
 * types the ERROR probe reports in arg4 ("ERROR Probe").
 *
 * Linux meanings:
 *   cpu_id    the CPU number (as the `cpu` variable);
 *   cpu_pset  always -1 (PS_NONE): Linux has no processor sets;
 *   cpu_chip  always -1: the physical package is not known to BPF programs;
 *   cpu_lgrp  the CPU's NUMA node (the locality group of Solaris).
 * curcpu points at a per-CPU copy of these, filled when it is read; the
 * processor_info_t member of Solaris (cpu_info) is not provided.
 */

typedef struct cpuinfo {
	processorid_t cpu_id;
	int cpu_pset;
	int cpu_chip;
	int cpu_lgrp;
} cpuinfo_t;

inline cpuinfo_t *curcpu = (cpuinfo_t *)__dt_curcpu();

/* The current CPU's processor set, chip and locality group (sched.d). */
inline int pset = curcpu->cpu_pset;
inline int chip = curcpu->cpu_chip;
inline int lgrp = curcpu->cpu_lgrp;

inline int DTRACEFLT_UNKNOWN = 0;
inline int DTRACEFLT_BADADDR = 1;
inline int DTRACEFLT_BADALIGN = 2;
inline int DTRACEFLT_ILLOP = 3;
inline int DTRACEFLT_DIVZERO = 4;
inline int DTRACEFLT_NOSCRATCH = 5;
inline int DTRACEFLT_KPRIV = 6;
inline int DTRACEFLT_UPRIV = 7;
inline int DTRACEFLT_TUPOFLOW = 8;
inline int DTRACEFLT_BADSTACK = 9;
