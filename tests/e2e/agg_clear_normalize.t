# normalize(@, n) divides the printed values by n until denormalize(@); clear(@) zeroes the values but keeps the keys, also in the kernel, so later additions count from zero.
# (The tick waits 200 ms, so that the consumer has printed BEGIN's records, which read the aggregation as it is when they are consumed.)
args: -qn 'BEGIN { @a["x"] = sum(100); @a["y"] = sum(250); normalize(@a, 10); printa(@a); clear(@a); printa(@a); denormalize(@a); } tick-10ms /n++ == 20/ { @a["x"] = sum(7); exit(0); } END { printa(@a); }'
status: 0
stdout:

  x                                                                10
  y                                                                25

  x                                                                 0
  y                                                                 0

  y                                                                 0
  x                                                                 7

