# Integer constants fold in 64 bits and stay unnarrowed until a cast or a store
# narrows them: (1 << 63) - 1 is INT64_MAX although 1 is an int, and so is the
# value quantize() adds; a cast cuts it to its type. NULL is the integer
# constant 0 (an int: sizeof (NULL) is 4) and converts to any pointer.
args: -qn 'BEGIN { @ = quantize(2, (1 << 63) - 1); x = (long long)((1 << 63) - 1); printf("%d %d %d\n", x == 9223372036854775807, (int)((1 << 32) + 5), sizeof (NULL)); p = (char *)NULL; q = curthread; printf("%d %d\n", p == NULL, q != NULL); exit(0); }'
status: 0
stdout:
1 5 4
1 1


           value  ------------- Distribution ------------- count    
               1 |                                         0        
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 9223372036854775807
               4 |                                         0        

