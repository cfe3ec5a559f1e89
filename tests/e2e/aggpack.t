# aggpack: quantize() and lquantize() print one packed line per key under one header per aggregation; an ASCII terminal (TERM=dumb) gets the levels "__xxxxXX".
sh: TERM=dumb $DTRACE -x aggpack -qn 'BEGIN { @[1] = quantize(1); @[1] = quantize(5); @[1] = quantize(5); @[2] = quantize(100); @l = lquantize(3, 0, 4, 1); exit(0); }'
status: 0
stdout:


      key  min .---------. max  | count
        1    0 : x x     : 128  | 3
        2    0 :       X : 128  | 1

     min .------. max      | count
     < 0 :    X : >= 4     | 1
