# copyout() and copyoutstr() write user memory: destructive subroutines, refused
# without -w ("Destructive actions not allowed", as for any destructive action).
# (With -w they also need bpf_probe_write_user, which kernel lockdown may forbid;
# dtrace then says so in one line.)
args: -n 'BEGIN { copyoutstr("hi", 0x1000, 3); exit(0); }'
status: 1
stderr:
dtrace: could not enable tracing: Destructive actions not allowed
