# dtrace -S prints, under each clause, the variables it uses: a global at its natural alignment after a char, a clause-local struct (by reference, 8-aligned), and a thread-local array referenced in place by an element store.
sh: $DTRACE -Sen 'char c; short g; this char d; this struct { int a; } s; self int t[3]; BEGIN { g = 1; this->s.a = g; self->t[1] = 2; exit(0); }' 2>&1 | awk '/^NAME/ { p = 1 } p && NF == 0 { p = 0 } p { $2 = $6 = ""; gsub(/ +/, " "); print }'
status: 0
stdout:
NAME OFFSET KND SCP FLAG TYPE
g 2 scl glb r/w D type (integer) (size 2)
s 8 scl loc r D type (struct) by ref (size 4)
t 0 scl tls r D type (array) by ref (size 12)
