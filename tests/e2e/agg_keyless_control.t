# printa, normalize, clear and trunc of keyless aggregations: clear() zeroes the value and keeps it (a cleared count prints 0, a cleared quantize its zero rows); trunc() removes it, so printa prints nothing until it is updated again (END's count starts from zero).
# (Records are read as the stream reaches them: the tick's printa sees its own update, BEGIN's were read before the tick.)
args: -qn 'BEGIN { @ = count(); @ = count(); @s = sum(10); @q = quantize(3); normalize(@s, 5); printa(@); printa(@s); clear(@); clear(@q); printa(@); printa(@q); } tick-10ms /n++ == 20/ { @ = count(); @s = sum(0); printa(@); printa(@s); trunc(@); trunc(@s); printa(@); printa(@s); exit(0); } END { @ = count(); printa(@); printa(@s); }'
status: 0
stdout:

                2

                2

                0


           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |                                         0        
               1 |                                         0        


                1

                2



                1


