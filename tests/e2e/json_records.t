# -O json: one document in FreeBSD's schema; trace() values exact (a uint64_t of 2^64-1), printf as message then raw values, printa rows sorted by value, the anonymous aggregation named "_", aggregations nothing printed in a last dtrace:::END object.
sh: "$DTRACE" -O json -n 'BEGIN { trace((uint64_t)-1); printf("%s=%d\n", "x", -3); @c["b"] = count(); @c["a"] = count(); @c["a"] = count(); printa(@c); @ = sum(5); @q = quantize(3); exit(0); }' 2>/dev/null | python3 "$S/jsoncheck.py" doc
status: 0
stdout:
dtrace:::BEGIN [{"value":18446744073709551615},{"message":"x=-3\n"},{"value":"x"},{"value":-3},{"aggregation-name":"c","aggregation-data":[{"keys":[{"value":"b"}],"count":1},{"keys":[{"value":"a"}],"count":2}]}]
dtrace:::END [{"aggregation-name":"_","aggregation-data":[{"keys":[],"sum":5}]},{"aggregation-name":"q","aggregation-data":[{"keys":[],"buckets":[{"value":1,"count":0},{"value":2,"count":1},{"value":4,"count":0}]}]}]
valid
