# Bucket counts near 2^63 wrap as 64-bit signed values (INT64_MAX + 1 prints -9223372036854775808); a distribution with both signs draws half bars either side of the centre, a bucket far below the total draws none.
args: -qn 'this long long v; BEGIN { this->v = 0x7fffffffffffffffLL; @["m"] = quantize(1, this->v); @["m"] = quantize(1); @["m"] = quantize(2, this->v); @["m"] = quantize(8, 400000); @l["l"] = lquantize(-5, -10, 10, 1, this->v); @l["l"] = lquantize(-5, -10, 10, 1); exit(0); }'
status: 0
stdout:

  m                                                 
           value  ------------- Distribution ------------- count    
               0                     |                     0        
               1           @@@@@@@@@@|                     -9223372036854775808
               2                     |@@@@@@@@@@           9223372036854775807
               4                     |                     0        
               8                     |                     400000   
              16                     |                     0        

  l                                                 
           value  ------------- Distribution ------------- count    
              -6                                         | 0        
              -5 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -9223372036854775808
              -4                                         | 0        

