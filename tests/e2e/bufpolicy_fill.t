# bufpolicy=fill: records go into each CPU's buffer until one does not fit;
# then tracing stops by itself (this program never calls exit()), END still
# records in the room kept for it, and the buffer is printed from its first
# record (Dynamic Tracing Guide, "fill Policy" and "fill Policy and END
# Probes"). The records the full buffer refused are reported as drops. Only
# CPU 0 records, so its records print in firing order.
sh: "$DTRACE" -x bufpolicy=fill -b 4k -qn 'profile-1ms /cpu == 0/ { printf("%d\n", i++); } END { printf("end\n"); }' 2>&1 | awk '/^[0-9]+$/ { n++; if (n == 1) first = $1; if (n > 1 && $1 != prev + 1) gap = 1; prev = $1; next } /^end$/ { end = 1; next } /^dtrace: [0-9]+ drops? on CPU [0-9]+$/ { drops = 1; next } NF { other++ } END { print "first " first; print (n >= 4096 / 64 && n <= 4096 / 16) ? "one buffer" : "kept " n; print gap ? "gap" : "in order"; print end ? "END recorded" : "no END"; print drops ? "drops reported" : "no drops"; print other + 0, "other lines" }'
status: 0
timeout: 20
stdout:
first 0
one buffer
in order
END recorded
drops reported
0 other lines
