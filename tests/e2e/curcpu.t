# curcpu points at the current CPU's cpuinfo_t: cpu_id is the CPU number (as
# `cpu`), cpu_pset -1 (no processor sets on Linux); its address is an integer
# D may compute with. The DTRACEFLT_* constants name the ERROR probe's fault types.
args: -qn 'BEGIN { printf("%d %d %d %d %d %d\n", curcpu->cpu_id == cpu, curcpu->cpu_pset, ((int64_t)curcpu >> 8) != 0, DTRACEFLT_UNKNOWN, DTRACEFLT_BADADDR, DTRACEFLT_DIVZERO); exit(0); }'
status: 0
stdout:
1 -1 1 0 1 4

