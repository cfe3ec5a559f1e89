# print() of a whole translated struct: *curpsinfo built member by member (pr_psargs read from user memory), printed in DTrace 2.x's layout (members Linux cannot translate are 0, so left out).
args: -qn 'syscall::getppid:entry /pid == $target/ { print(*curpsinfo); exit(0); }' -c "$T/getppid_loop 3"
status: 0
stdout-has:
                                            (psinfo_t) {
                                             .pr_nlwp = (int)1,
                                             .pr_argc = (int)2,
                                             .pr_fname = (char [16]) [
                                              (char)'g',
                                              (char)'_',
                                             ],
                                             .pr_psargs = (char [80]) [
                                            }
