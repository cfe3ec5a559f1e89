# The Dynamic Tracing Guide's rwinfo.d ("Structs and Unions"): a struct-valued
# associative array updated member by member (created zero-filled by the first
# member store). The trigger writes sizes 1, 2, 4, ..., 128 bytes three times
# each: 24 write(2) calls, largest count 128. Its reads (the dynamic loader's)
# and the elapsed times vary, so only their shape is checked.
args: -qs "$S/rwinfo.d" -c "$T/sizes 8 3"
status: 0
stdout-re:
^        calls  max bytes  elapsed nsecs$
^------  -----  ---------  -------------$
^  read  +[0-9]+  +[0-9]+  [0-9]+$
^ write     24        128  [1-9][0-9]*$
^$
