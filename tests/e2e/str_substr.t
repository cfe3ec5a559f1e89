# substr with every kind of index and length, in and out of range (DTrace's documented results).
sh: $DTRACE -s $S/str_substr.d
status: 0
stdout:
[abcdefghij] [defghij] [hij]
[cde] [cdefg] [gh]
[] [] [abcdefghij] [abc]
[] [] []

