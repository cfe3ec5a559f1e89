# count, sum, avg (integer mean), min, max and stddev (population) over known values.
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
args: -qn 'BEGIN { @c = count(); @c = count(); @s = sum(5); @s = sum(7); @a = avg(2); @a = avg(5); @mn = min(3); @mn = min(-4); @mx = max(3); @mx = max(-4); @sd = stddev(2); @sd = stddev(4); @sd = stddev(4); @sd = stddev(4); @sd = stddev(5); @sd = stddev(5); @sd = stddev(7); @sd = stddev(9); exit(0); }'
status: 0
stdout:

                2
               12
                3
               -4
                3
                2
