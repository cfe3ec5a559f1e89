# print() of a whole translated struct: *curpsinfo built member by member (pr_psargs read from user memory), printed with its type (members Linux cannot translate are 0).
args: -qn 'syscall::getppid:entry /pid == $target/ { print(*curpsinfo); exit(0); }' -c "$T/getppid_loop 3"
status: 0
stdout-re:
psinfo_t \{
    pr_flag = 0x[0-9a-f]+
    pr_nlwp = 0x1
    pr_pid = 0x[0-9a-f]+
    pr_ppid = 0x[0-9a-f]+
    pr_pgid = 0x[0-9a-f]+
    pr_sid = 0x[0-9a-f]+
    pr_uid = 0x0
    pr_euid = 0x0
    pr_gid = 0x0
    pr_egid = 0x0
    pr_addr = 0xffff[0-9a-f]+
    pr_size = 0x0
    pr_rssize = 0x0
    pr_pctcpu = 0x0
    pr_pctmem = 0x0
    pr_wstat = 0x0
    pr_argc = 0x2
    pr_argv = 0x7ff[0-9a-f]+
    pr_fname = "getppid_loop"
    pr_psargs = "/.*/getppid_loop 3"
    pr_dmodel = 0x2
\}

