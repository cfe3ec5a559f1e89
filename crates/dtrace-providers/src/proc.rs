//! The `proc` provider (the Dynamic Tracing Guide's "proc Provider"): process
//! and thread creation, exec, exit and signals, on the kernel tracepoints that
//! fire at the same moment in the same context.
//!
//! | probe | raw tracepoint | pre-condition |
//! |---|---|---|
//! | `exec` | `sys_enter` | `execve`/`execveat` |
//! | `exec-success` | `sched_process_exec` | (the new image is in place) |
//! | `exec-failure` | `sys_exit` | `execve`/`execveat` returned an error |
//! | `exit` | `sched_process_exit` | the thread group is dead |
//! | `lwp-exit` | `sched_process_exit` | |
//! | `create` | `task_newtask` | no `CLONE_THREAD` |
//! | `lwp-create` | `task_newtask` | `CLONE_THREAD` |
//! | `start` | `sys_exit` | a fork/clone returning 0 in a new process |
//! | `lwp-start` | `sys_exit` | a clone returning 0 in a new thread |
//! | `signal-send` | `signal_generate` | not ignored |
//! | `signal-discard` | `signal_generate` | ignored |
//! | `signal-handle` | `signal_deliver` | |
//! | `signal-clear` | `sys_exit` | `rt_sigtimedwait` returned a signal |
//!
//! Arguments are DTrace's: `psinfo_t *`/`lwpsinfo_t *` translated from the
//! native `struct task_struct *` by `procfs.d`, the signal number, exec's
//! path, and `exit`'s reason (`CLD_EXITED`, `CLD_KILLED` or `CLD_DUMPED`).
//! Every probe fires in the context DTrace documents: `exec-success`, `start`
//! and `exit` in the process concerned, `create` and `signal-send` in the
//! creating or sending thread, `signal-handle` and `signal-clear` in the
//! receiving one.

use crate::kernel_sdt::{
    native, test, user_string, xlate, Arg, SdtProbe, TableProvider, Unavailable,
};
use dtrace_sema::{Cmp, Prep, Src};

/// The `proc` provider.
pub const PROVIDER: TableProvider = TableProvider {
    name: "proc",
    probes: PROBES,
    unavailable: UNAVAILABLE,
    optional: &[],
};

/// x86_64 system-call numbers.
const EXECVE: u32 = 59;
const EXECVEAT: u32 = 322;
const CLONE: u32 = 56;
const FORK: u32 = 57;
const VFORK: u32 = 58;
const CLONE3: u32 = 435;
const RT_SIGTIMEDWAIT: u32 = 128;
/// `clone(2)`'s flag for a thread of the same process.
const CLONE_THREAD: i32 = 0x10000;
/// `signal_generate`'s result for a signal the target ignores.
const SIGNAL_IGNORED: i32 = 1;

const TASK: &str = "struct task_struct *";
const LWP: Arg = xlate(TASK, "lwpsinfo_t *", 0);
const PS: Arg = xlate(TASK, "psinfo_t *", 0);

const fn prep(
    syscalls: &'static [u32],
    tests: &'static [dtrace_sema::Test],
    args: &'static [Src],
) -> Prep {
    Prep {
        syscalls,
        tests,
        args,
    }
}

pub const PROBES: &[SdtProbe] = &[
    SdtProbe {
        name: "create",
        tp: "task_newtask",
        prep: prep(
            &[],
            &[test(Src::Raw(1), Cmp::Clear, CLONE_THREAD)],
            &[Src::Raw(0)],
        ),
        args: &[xlate(TASK, "psinfo_t *", 0)],
    },
    SdtProbe {
        name: "exec",
        tp: "sys_enter",
        prep: prep(&[EXECVE, EXECVEAT], &[], &[Src::ExecPath]),
        args: &[user_string(0)],
    },
    SdtProbe {
        name: "exec-failure",
        tp: "sys_exit",
        prep: prep(
            &[EXECVE, EXECVEAT],
            &[test(Src::Raw(1), Cmp::Ne, 0)],
            &[Src::NegRet],
        ),
        args: &[native("int", 0)],
    },
    SdtProbe {
        name: "exec-success",
        tp: "sched_process_exec",
        prep: prep(&[], &[], &[]),
        args: &[],
    },
    SdtProbe {
        name: "exit",
        tp: "sched_process_exit",
        prep: prep(&[], &[test(Src::Raw(1), Cmp::Ne, 0)], &[Src::ExitReason]),
        args: &[native("int", 0)],
    },
    SdtProbe {
        name: "lwp-create",
        tp: "task_newtask",
        prep: prep(
            &[],
            &[test(Src::Raw(1), Cmp::Set, CLONE_THREAD)],
            &[Src::Raw(0)],
        ),
        args: &[LWP, PS],
    },
    SdtProbe {
        name: "lwp-exit",
        tp: "sched_process_exit",
        prep: prep(&[], &[], &[]),
        args: &[],
    },
    SdtProbe {
        name: "lwp-start",
        tp: "sys_exit",
        prep: prep(
            &[CLONE, CLONE3],
            &[
                test(Src::Raw(1), Cmp::Eq, 0),
                test(Src::NotLeader, Cmp::Ne, 0),
            ],
            &[],
        ),
        args: &[],
    },
    SdtProbe {
        name: "signal-clear",
        tp: "sys_exit",
        prep: prep(
            &[RT_SIGTIMEDWAIT],
            &[test(Src::Raw(1), Cmp::Gt, 0)],
            &[Src::Raw(1)],
        ),
        args: &[native("int", 0)],
    },
    SdtProbe {
        name: "signal-discard",
        tp: "signal_generate",
        prep: prep(
            &[],
            &[test(Src::Raw(4), Cmp::Eq, SIGNAL_IGNORED)],
            &[Src::Raw(2), Src::Raw(0)],
        ),
        args: &[LWP, PS, native("int", 1)],
    },
    SdtProbe {
        name: "signal-handle",
        tp: "signal_deliver",
        prep: prep(
            &[],
            &[test(Src::DeliveredSignal, Cmp::Ne, 0)],
            &[Src::DeliveredSignal, Src::Raw(1), Src::Deref(2)],
        ),
        args: &[
            native("int", 0),
            native("siginfo_t *", 1),
            native("void (*)(void)", 2),
        ],
    },
    SdtProbe {
        name: "signal-send",
        tp: "signal_generate",
        prep: prep(
            &[],
            &[test(Src::Raw(4), Cmp::Ne, SIGNAL_IGNORED)],
            &[Src::Raw(2), Src::Raw(0)],
        ),
        args: &[LWP, PS, native("int", 1)],
    },
    SdtProbe {
        name: "start",
        tp: "sys_exit",
        prep: prep(
            &[CLONE, FORK, VFORK, CLONE3],
            &[
                test(Src::Raw(1), Cmp::Eq, 0),
                test(Src::NotLeader, Cmp::Eq, 0),
            ],
            &[],
        ),
        args: &[],
    },
];

/// `proc:::fault` has no kernel event: no tracepoint fires when a thread takes
/// a machine fault that becomes a signal.
pub const UNAVAILABLE: &[Unavailable] = &[Unavailable {
    name: "fault",
    why: "no kernel tracepoint fires when a thread takes a machine fault",
}];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Provider;

    #[test]
    fn table_is_consistent() {
        crate::kernel_sdt::check_table(PROBES, UNAVAILABLE);
        let l = PROVIDER.list();
        let send = l.iter().find(|p| p.name == "signal-send").unwrap();
        let shown: Vec<&str> = send.args.iter().map(|a| a.shown()).collect();
        assert_eq!(shown, ["lwpsinfo_t *", "psinfo_t *", "int"]);
        assert_eq!(send.args[2].mapping, 1);
        assert!(PROVIDER.unavailable("fault").is_some());
        assert!(PROVIDER.unavailable("exec").is_none());
    }
}
