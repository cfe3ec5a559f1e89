/*
 * procfs.d: the process model of the Dynamic Tracing Guide ("Process Model
 * Translators"): psinfo_t and lwpsinfo_t, Linux-meaningful subsets of the
 * Solaris /proc structures, translated from the kernel's struct task_struct,
 * and curpsinfo / curlwpsinfo for the current thread.
 *
 * Linux meanings:
 *   psinfo_t    pr_pid is the thread-group id (what ps calls the PID); pr_ppid
 *               the real parent's; pr_pgid and pr_sid the process group and
 *               session in the initial pid namespace; the ids are the task's
 *               credentials; pr_addr the task_struct address; pr_fname the
 *               command name (comm, 16 bytes); pr_psargs the arguments as one
 *               string, NULs made spaces, at most 79 bytes (read from the
 *               current process's memory: for any other task, and for kernel
 *               threads, it is the command name); pr_argc the argument count
 *               and pr_argv the user address of argv[] (both from the initial
 *               stack, mm->start_stack; pr_argc is 0 for tasks other than the
 *               current one); pr_dmodel PR_MODEL_LP64.
 *   lwpsinfo_t  pr_lwpid is the thread id; pr_flag the task flags (PF_*);
 *               pr_state/pr_sname the scheduling state (SONPROC 'O' on a CPU,
 *               SRUN 'R' runnable, SSLEEP 'S' sleeping, SSTOP 'T' stopped or
 *               traced, SZOMB 'Z' exited, SIDL 'I' anything else); pr_pri the
 *               kernel priority (0-139, lower is more urgent); pr_nice the nice
 *               value; pr_onpro the CPU it last ran on; pr_name the thread name.
 *   Members of the Solaris structures with no Linux meaning (pr_size,
 *   pr_rssize, pr_pctcpu, pr_pctmem, pr_wstat; pr_oldpri, pr_cpu, pr_clname,
 *   pr_bindpset, pr_lgrp) are declared but not translated: reading one is
 *   an error (D_XLATE_NOCONV), and a whole translation leaves them zero.
 */

inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;

inline char PR_MODEL_ILP32 = 1;
inline char PR_MODEL_LP64 = 2;

typedef struct psinfo {
	int pr_flag;
	int pr_nlwp;
	pid_t pr_pid;
	pid_t pr_ppid;
	pid_t pr_pgid;
	pid_t pr_sid;
	uid_t pr_uid;
	uid_t pr_euid;
	gid_t pr_gid;
	gid_t pr_egid;
	uintptr_t pr_addr;
	size_t pr_size;
	size_t pr_rssize;
	unsigned short pr_pctcpu;
	unsigned short pr_pctmem;
	int pr_wstat;
	int pr_argc;
	uintptr_t pr_argv;
	char pr_fname[16];
	char pr_psargs[80];
	char pr_dmodel;
} psinfo_t;

typedef struct lwpsinfo {
	int pr_flag;
	id_t pr_lwpid;
	uintptr_t pr_addr;
	uintptr_t pr_wchan;
	char pr_stype;
	char pr_state;
	char pr_sname;
	char pr_nice;
	short pr_syscall;
	int pr_oldpri;
	int pr_cpu;
	int pr_pri;
	unsigned short pr_pctcpu;
	char pr_clname[8];
	processorid_t pr_onpro;
	processorid_t pr_bindpro;
	int pr_bindpset;
	int pr_lgrp;
	char pr_name[16];
} lwpsinfo_t;

translator psinfo_t < struct task_struct *T > {
	pr_flag = T->flags;
	pr_nlwp = T->signal->nr_threads;
	pr_pid = T->tgid;
	pr_ppid = T->real_parent->tgid;
	pr_pgid = T->signal->pids[PIDTYPE_PGID]->numbers[0].nr;
	pr_sid = T->signal->pids[PIDTYPE_SID]->numbers[0].nr;
	pr_uid = T->cred->uid.val;
	pr_euid = T->cred->euid.val;
	pr_gid = T->cred->gid.val;
	pr_egid = T->cred->egid.val;
	pr_addr = (uintptr_t)T;
	pr_argc = T != curthread || T->mm == NULL ? 0 :
	    __dt_uword(T->mm->start_stack);
	pr_argv = T->mm == NULL ? 0 : T->mm->start_stack + sizeof (long);
	pr_fname = T->comm;
	pr_psargs = T != curthread || T->mm == NULL ? stringof(T->comm) :
	    __dt_uargs(T->mm->arg_start, T->mm->arg_end);
	pr_dmodel = PR_MODEL_LP64;
};

translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = T->flags;
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_wchan = 0;
	pr_stype = 0;
	pr_state = T->exit_state != 0 ? SZOMB : T->on_cpu ? SONPROC :
	    T->__state == 0 ? SRUN : (T->__state & 3) != 0 ? SSLEEP :
	    (T->__state & 12) != 0 ? SSTOP : SIDL;
	pr_sname = T->exit_state != 0 ? 'Z' : T->on_cpu ? 'O' :
	    T->__state == 0 ? 'R' : (T->__state & 3) != 0 ? 'S' :
	    (T->__state & 12) != 0 ? 'T' : 'I';
	pr_nice = T->static_prio - 120;
	pr_syscall = 0;
	pr_pri = T->prio;
	pr_onpro = T->thread_info.cpu;
	pr_bindpro = -1;
	pr_name = T->comm;
};

/*
 * The CPU a task is on (or last ran on), for the sched provider's cpuinfo_t
 * arguments: its locality group is known only for the current CPU (-1 for
 * another).
 */
translator cpuinfo_t < struct task_struct *T > {
	cpu_id = T->thread_info.cpu;
	cpu_pset = -1;
	cpu_chip = -1;
	cpu_lgrp = T->thread_info.cpu == curcpu->cpu_id ? curcpu->cpu_lgrp : -1;
};

inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);
inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);
