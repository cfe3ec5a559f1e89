# lquantize(v, 0, 64, 16) of sizes 1..128: underflow and overflow rows labelled "< 0" and ">= 64".
# At exit: one blank line (dtrace ending its output), then the aggregations with nothing between them (Solaris Dynamic Tracing Guide, "syscall Provider" count example; Oracle Solaris DTrace Guide, aggregation walker examples).
args: -qn 'syscall::write:entry /pid == $target/ { @ = lquantize(arg2, 0, 64, 16); }' -c "$T/sizes 8"
status: 0
stdout:


           value  ------------- Distribution ------------- count    
             < 0 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@                     4        
              16 |@@@@@                                    1        
              32 |@@@@@                                    1        
              48 |                                         0        
           >= 64 |@@@@@@@@@@                               2        

