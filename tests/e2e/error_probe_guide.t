# The Solaris Dynamic Tracing Guide's "ERROR Probe" example (error.d, with exit(0)
# added to ERROR so the run ends): the ERROR clause's line, dtrace's fault message
# naming the address, then the per-CPU count "dtrace: 1 error on CPU 2".
args: -s "$S/error.d"
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+      3                           :ERROR Hit an error!

stderr-re:
dtrace: script '.*/error.d' matched 2 probes
dtrace: error on enabled probe ID 1 \(ID 1: dtrace:::BEGIN\): invalid address \(0x0\) in action #1 at DIF offset [0-9]+
dtrace: 1 error on CPU [0-9]+
