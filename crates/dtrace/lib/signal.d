/*
 * signal.d: the Linux signal numbers (x86_64 and the generic ABI) as D
 * constants. SIGRTMIN and SIGRTMAX are the kernel's bounds (32, 64); C libraries
 * reserve the first few real-time signals for themselves.
 */

inline int SIGHUP = 1;
inline int SIGINT = 2;
inline int SIGQUIT = 3;
inline int SIGILL = 4;
inline int SIGTRAP = 5;
inline int SIGABRT = 6;
inline int SIGIOT = 6;
inline int SIGBUS = 7;
inline int SIGFPE = 8;
inline int SIGKILL = 9;
inline int SIGUSR1 = 10;
inline int SIGSEGV = 11;
inline int SIGUSR2 = 12;
inline int SIGPIPE = 13;
inline int SIGALRM = 14;
inline int SIGTERM = 15;
inline int SIGSTKFLT = 16;
inline int SIGCHLD = 17;
inline int SIGCLD = 17;
inline int SIGCONT = 18;
inline int SIGSTOP = 19;
inline int SIGTSTP = 20;
inline int SIGTTIN = 21;
inline int SIGTTOU = 22;
inline int SIGURG = 23;
inline int SIGXCPU = 24;
inline int SIGXFSZ = 25;
inline int SIGVTALRM = 26;
inline int SIGPROF = 27;
inline int SIGWINCH = 28;
inline int SIGIO = 29;
inline int SIGPOLL = 29;
inline int SIGPWR = 30;
inline int SIGSYS = 31;
inline int SIGRTMIN = 32;
inline int SIGRTMAX = 64;

/*
 * The si_code values of SIGCHLD, which proc:::exit's argument also uses for
 * how a process exited: CLD_EXITED (it called exit), CLD_KILLED (a signal
 * killed it), CLD_DUMPED (a signal killed it and it dumped core).
 */
inline int CLD_EXITED = 1;
inline int CLD_KILLED = 2;
inline int CLD_DUMPED = 3;
inline int CLD_TRAPPED = 4;
inline int CLD_STOPPED = 5;
inline int CLD_CONTINUED = 6;
