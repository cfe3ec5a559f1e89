# count() equals the number of calls made; unkeyed value is printed as %16d after a space.
args: -qn 'syscall::getppid:entry /pid == $target/ { @ = count(); }' -c "$T/getppid_loop 1000"
status: 0
stdout:


             1000
