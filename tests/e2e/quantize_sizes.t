# quantize() of write sizes 1,2,4,...,128 (one each): one zero row either side of the used range,
# and the blank line that ends each distribution (as between keyed distributions in the guide).
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
args: -qn 'syscall::write:entry /pid == $target/ { @ = quantize(arg2); }' -c "$T/sizes 8"
status: 0
stdout:


           value  ------------- Distribution ------------- count    
               0 |                                         0        
               1 |@@@@@                                    1        
               2 |@@@@@                                    1        
               4 |@@@@@                                    1        
               8 |@@@@@                                    1        
              16 |@@@@@                                    1        
              32 |@@@@@                                    1        
              64 |@@@@@                                    1        
             128 |@@@@@                                    1        
             256 |                                         0        

