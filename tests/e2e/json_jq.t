# -O json parsed by jq (issue 11's acceptance check): a document with every kind of record a kernel program makes here (trace, printf and its raw values, tracemem, sym, mod, stack, printa, a fault as an ERROR object, the aggregations at exit); jq lists each probe object's element kinds in order.
sh: "$DTRACE" -O json -n 'BEGIN { trace(1); printf("%d\n", 2); tracemem(curthread, 8); sym(0); mod(0); stack(); @c["k"] = count(); printa(@c); @q = quantize(5); } BEGIN { trace(*(int *)0); } BEGIN { exit(0); }' 2>/dev/null | jq -r '.dtrace.probes[] | [.name, (.output // [] | map(keys_unsorted[0]) | join(",")), (.error // {} | keys_unsorted | join(","))] | @tsv'
status: 0
stdout:
BEGIN	value,message,value,tracemem,sym,mod,stack-frames,aggregation-name	
BEGIN		fault,addr,action,offset,epid,msg
BEGIN		
END	aggregation-name	
