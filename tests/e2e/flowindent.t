# -F shows the call flow: main's entry, then each call of work nested
# inside it (a probe named entry prints `-> function` and indents, return
# unindents and prints `<- function`), then main's return. A second clause
# of a return probe unindents as well (as DTrace 2 does: it looks at no
# next record). With -q the probe line stays, without the newline that
# ends a record. (_DTRACE_TESTING: without the CPU column.)
sh: _DTRACE_TESTING=1 $DTRACE -qF -n 'pid$target:a.out:main:entry, pid$target:a.out:work:entry { printf("\n"); }' -n 'pid$target:a.out:main:return, pid$target:a.out:work:return { printf("%d\n", arg1); }' -n 'pid$target:a.out:main:return { printf("done\n"); }' -c "$T/pid_calls 0"
status: 0
stdout:
FUNCTION                                 
 -> main                                  
   -> work                                
   <- work                                0
   -> work                                
   <- work                                11
   -> work                                
   <- work                                22
   -> work                                
   <- work                                33
   -> work                                
   <- work                                44
 <- main                                  0
 <- main                                  done

