# The Solaris Dynamic Tracing Guide's "ERROR Probe" example (error.d, with exit(0)
# added to ERROR so the run ends): the ERROR clause's line, dtrace's fault message
# naming the address, in Oracle DTrace 2.x's form (no per-CPU count after it).
args: -s "$S/error.d"
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+      3                           :ERROR Hit an error!

stderr-re:
dtrace: script '.*/error.d' matched 2 probes
dtrace: error in dt_clause_0 for probe ID 1 \(dtrace:::BEGIN\): invalid address \(0x0\) at BPF pc [0-9]+
