# sdt:<group>::<event> enables a kernel tracepoint; args[] are its format
# fields after the common ones (raw_syscalls:sys_enter: long id, then the
# argument array). getppid is x86_64 syscall 110; the loop makes 1000 calls.
args: -qn 'sdt:raw_syscalls::sys_enter /pid == $target && args[0] == 110/ { @ = count(); }' -c "$T/getppid_loop 1000"
status: 0
stdout:

             1000
