# 400 clauses for one probe (more than the verifier's 256 functions per program), each updating a keyed aggregation and two shared ones, load and run in program order.
sh: prog=$(for i in $(seq 1 400); do printf 'BEGIN { @c[%d] = sum(%d); @all = count(); @last = max(%d); }\n' $i $i $i; done); "$DTRACE" -q -n "$prog BEGIN { trunc(@c, 3); printa(\"%d:%@d \", @c); printa(\"%@d \", @all); printa(\"%@d\\n\", @last); trunc(@c); trunc(@all); trunc(@last); exit(0); }"
status: 0
timeout: 60
stdout:
398:398 399:399 400:400 400 400

