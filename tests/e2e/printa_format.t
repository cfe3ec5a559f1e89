# printa() with a format prints rows sorted by value; the aggregation is not printed again at exit.
args: -qn 'BEGIN { @a["x"] = sum(3); @a["y"] = sum(1); printa("%s=%@d\n", @a); exit(0); }'
status: 0
stdout:
y=1
x=3

