# Thread-local struct and array variables updated member by member and element
# by element on every getppid(2) of a trigger making 1000 calls on one thread:
# n counts 1..1000, and a[n % 3] counts the n with each remainder (333 with 0,
# 334 with 1, 333 with 2).
args: -qn 'struct st { uint64_t n; string name; }; self struct st s; self int a[3]; syscall::getppid:entry /pid == $target/ { self->s.n++; self->s.name = probefunc; self->a[self->s.n % 3]++; } syscall::getppid:return /pid == $target && self->s.n == 1000/ { printf("%d %s %d %d %d\n", self->s.n, self->s.name, self->a[0], self->a[1], self->a[2]); }' -c "$T/getppid_loop 1000"
status: 0
stdout:
1000 getppid 333 334 333

