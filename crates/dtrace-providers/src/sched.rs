//! The `sched` provider (the Dynamic Tracing Guide's "sched Provider"): CPU
//! scheduling, on the kernel tracepoints that fire at the same moment in the
//! same context.
//!
//! | probe | raw tracepoint | pre-condition | context |
//! |---|---|---|---|
//! | `on-cpu` | `sched_exit_tp` | a switch happened | the thread now on the CPU |
//! | `remain-cpu` | `sched_exit_tp` | no switch | the thread that stays |
//! | `off-cpu` | `sched_switch` | | the thread leaving; `args[]` the next |
//! | `sleep` | `sched_switch` | not preempted, blocking | the thread going to sleep |
//! | `dequeue` | `sched_switch` | not preempted, blocking | the blocking thread leaves its run queue |
//! | `preempt` | `sched_entry_tp` | entered to preempt | the thread being preempted |
//! | `wakeup` | `sched_waking` | | the waker; `args[]` the thread woken |
//! | `enqueue` | `sched_wakeup` | | the woken thread is on its run queue |
//! | `surrender` | `sys_enter` | `sched_yield` | the yielding thread |
//!
//! `on-cpu` is fired at the end of `__schedule` (and in `schedule_tail` for a
//! new thread's first run), in the incoming thread, so `curthread`, `pid` and
//! `execname` are the thread coming on the CPU with no redirection.
//! `change-pri` and `tick` have no tracepoint at their moment on this kernel;
//! enabling them is an error that says so.

use crate::kernel_sdt::{native, test, xlate, Arg, SdtProbe, TableProvider, Unavailable};
use dtrace_sema::{Cmp, Prep, Src, Test};

/// The `sched` provider.
pub const PROVIDER: TableProvider = TableProvider {
    name: "sched",
    probes: PROBES,
    unavailable: UNAVAILABLE,
    optional: &[],
};

const TASK: &str = "struct task_struct *";
const LWP: Arg = xlate(TASK, "lwpsinfo_t *", 0);
const PS: Arg = xlate(TASK, "psinfo_t *", 0);
/// `sched_yield`'s x86_64 system-call number.
const SCHED_YIELD: u32 = 24;

/// `sched_switch(preempt, prev, next, prev_state)`: the outgoing thread blocks
/// (it was not preempted and is no longer runnable).
const BLOCKING: &[Test] = &[test(Src::Raw(0), Cmp::Eq, 0), test(Src::Raw(3), Cmp::Ne, 0)];

const fn prep(syscalls: &'static [u32], tests: &'static [Test], args: &'static [Src]) -> Prep {
    Prep {
        syscalls,
        tests,
        args,
    }
}

pub const PROBES: &[SdtProbe] = &[
    SdtProbe {
        name: "dequeue",
        tp: "sched_switch",
        prep: prep(&[], BLOCKING, &[Src::Raw(1), Src::Raw(1), Src::Zero]),
        args: &[LWP, PS, xlate(TASK, "cpuinfo_t *", 1), native("int", 2)],
    },
    SdtProbe {
        name: "enqueue",
        tp: "sched_wakeup",
        prep: prep(&[], &[], &[Src::Raw(0), Src::Raw(0)]),
        args: &[LWP, PS, xlate(TASK, "cpuinfo_t *", 1)],
    },
    SdtProbe {
        name: "off-cpu",
        tp: "sched_switch",
        prep: prep(&[], &[], &[Src::Raw(2)]),
        args: &[LWP, PS],
    },
    SdtProbe {
        name: "on-cpu",
        tp: "sched_exit_tp",
        prep: prep(&[], &[test(Src::Raw(0), Cmp::Ne, 0)], &[]),
        args: &[],
    },
    SdtProbe {
        name: "preempt",
        tp: "sched_entry_tp",
        prep: prep(&[], &[test(Src::Raw(0), Cmp::Ne, 0)], &[]),
        args: &[],
    },
    SdtProbe {
        name: "remain-cpu",
        tp: "sched_exit_tp",
        prep: prep(&[], &[test(Src::Raw(0), Cmp::Eq, 0)], &[]),
        args: &[],
    },
    SdtProbe {
        name: "sleep",
        tp: "sched_switch",
        prep: prep(&[], BLOCKING, &[]),
        args: &[],
    },
    SdtProbe {
        name: "surrender",
        tp: "sys_enter",
        prep: prep(&[SCHED_YIELD], &[], &[Src::CurTask]),
        args: &[LWP, PS],
    },
    SdtProbe {
        name: "wakeup",
        tp: "sched_waking",
        prep: prep(&[], &[], &[Src::Raw(0)]),
        args: &[LWP, PS],
    },
];

pub const UNAVAILABLE: &[Unavailable] = &[
    Unavailable {
        name: "change-pri",
        why: "no kernel tracepoint fires when a thread's priority changes \
              (sched_pi_setprio covers only priority inheritance)",
    },
    Unavailable {
        name: "tick",
        why: "no kernel tracepoint fires on the scheduler's clock tick",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Provider;

    #[test]
    fn table_is_consistent() {
        crate::kernel_sdt::check_table(PROBES, UNAVAILABLE);
        let l = PROVIDER.list();
        let deq = l.iter().find(|p| p.name == "dequeue").unwrap();
        let shown: Vec<&str> = deq.args.iter().map(|a| a.shown()).collect();
        assert_eq!(shown, ["lwpsinfo_t *", "psinfo_t *", "cpuinfo_t *", "int"]);
        assert!(l.iter().all(|p| p.name != "tick"));
        assert!(PROVIDER.unavailable("tick").is_some());
    }
}
