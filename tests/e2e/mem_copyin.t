# copyinstr, copyin and copyinto read the buffer a traced process passes to write(2):
# copyinstr(addr) stops at the NUL, copyinstr(addr, maxlen) keeps maxlen - 1 bytes
# and the NUL, copyin(addr, n) copies n bytes into scratch space (read back as a
# string through the alloca pointer), copyinto copies into memory from alloca().
args: -qn 'syscall::write:entry /pid == $target/ { printf("[%s]\n", copyinstr(arg1)); printf("[%s]\n", copyinstr(arg1, 6)); printf("[%s]\n", stringof(copyin(arg1, 5))); this->p = (char *)alloca(8); copyinto(arg1 + 6, 6, this->p); this->p[6] = 0; printf("[%s] %c\n", stringof(this->p), this->p[1]); exit(0); }' -c "$T/write_msg"
status: 0
stdout:
[hello memory]
[hello]
[hello]
[memory] e

