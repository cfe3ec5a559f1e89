# llquantize() in Oracle DTrace 2.x's layout: negative values have buckets mirroring the positive ones, around the bucket of |value| < factor^low (labelled 0 when that bound is 1).
args: -qn 'BEGIN { @ = llquantize(-5, 10, 0, 1, 10); @ = llquantize(0, 10, 0, 1, 10); @ = llquantize(12, 10, 0, 1, 10); @ = llquantize(12, 10, 0, 1, 10); exit(0); }'
status: 0
stdout:


           value  ------------- Distribution ------------- count    
              -6 |                                         0        
              -5 |@@@@@@@@@@                               1        
              -4 |                                         0        
              -3 |                                         0        
              -2 |                                         0        
              -1 |                                         0        
               0 |@@@@@@@@@@                               1        
               1 |                                         0        
               2 |                                         0        
               3 |                                         0        
               4 |                                         0        
               5 |                                         0        
               6 |                                         0        
               7 |                                         0        
               8 |                                         0        
               9 |                                         0        
              10 |@@@@@@@@@@@@@@@@@@@@                     2        
              20 |                                         0        

