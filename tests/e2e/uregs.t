# uregs[] reads the user registers the kernel saved for the current thread: at a system call's entry R_ERR (orig_rax) is its number (getppid is 110 on x86_64) and R_RAX is still -ENOSYS; R_PC and its i386 name R_EIP are the same register, and R_FS is the thread's fsbase.
args: -qn 'syscall::getppid:entry /pid == $target/ { printf("%d %d %d\n", uregs[R_ERR], (int64_t)uregs[R_RAX], uregs[R_PC] == uregs[R_EIP]); printf("%d\n", uregs[R_FS] == curthread->thread.fsbase); exit(0); }' -c "$T/getppid_loop 1"
status: 0
stdout:
110 -38 1
1

