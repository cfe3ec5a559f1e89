# Keyless aggregations of every kind print their value at exit, in dtrace(1)'s layout (a line break, then the value, or the distribution); one updated only with zero (sum(0)) prints 0, one never updated prints nothing.
args: -qn 'BEGIN { @c = count(); @c = count(); @s = sum(5); @s = sum(-2); @a = avg(4); @a = avg(8); @mn = min(3); @mn = min(-7); @mx = max(3); @mx = max(9); @sd = stddev(2); @sd = stddev(6); @q = quantize(5); @q = quantize(-1); @l = lquantize(3, 0, 10, 2); @z = sum(0); exit(0); } BEGIN /0/ { @never = count(); }'
status: 0
stdout:

                2
                3
                6
               -7
                9
                2

           value  ------------- Distribution ------------- count    
              -2 |                                         0        
              -1 |@@@@@@@@@@@@@@@@@@@@                     1        
               0 |                                         0        
               1 |                                         0        
               2 |                                         0        
               4 |@@@@@@@@@@@@@@@@@@@@                     1        
               8 |                                         0        


           value  ------------- Distribution ------------- count    
               0 |                                         0        
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
               4 |                                         0        

                0
