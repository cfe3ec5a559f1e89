# printa() of several aggregations joins their rows by key; a key missing from one prints 0 for it. Rows sort by the first aggregation's value; a format takes the keys with its ordinary conversions and the values with %@ ones.
args: -qn 'BEGIN { @c["a"] = count(); @c["b"] = count(); @c["b"] = count(); @s["b"] = sum(5); @s["c"] = sum(9); @q["a"] = quantize(3); printa("%s %@d %@d\n", @c, @s); printa(@c, @s); printa("%s%@d\n", @q); exit(0); }'
status: 0
stdout:
c 0 9
a 1 0
b 2 5

  c                                                                 0                9
  a                                                                 1                0
  b                                                                 2                5
a
           value  ------------- Distribution ------------- count    
               1 |                                         0        
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
               4 |                                         0        


