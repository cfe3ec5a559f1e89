//! The `lockstat` provider: `lockstat:vmlinux::<probe>` for kernel lock events
//! (module `vmlinux`, function empty, as DTrace documents), with the
//! documented argument types.
//!
//! The contention probes fire when a thread that had to wait for a lock has
//! it (or, for `adaptive-acquire-error`, gave up), with the time it waited.
//! They are built on the kernel's contention tracepoints, `contention_begin`
//! and `contention_end`, whose `LCB_F_*` flags tell the lock's kind:
//!
//! | probe | waits that were | `args[]` |
//! |---|---|---|
//! | `adaptive-spin` | on a mutex, spinning only, and got it | lock, ns waited |
//! | `adaptive-block` | on a mutex, blocked at some point, and got it | lock, ns waited |
//! | `adaptive-acquire-error` | on a mutex, and failed (a signal) | lock, the error |
//! | `spin-spin` | on a spinlock, and got it | lock, ns waited |
//! | `rw-spin` | on a reader-writer spinlock, and got it | lock, ns waited, `RW_READER` (1) or `RW_WRITER` (0) |
//!
//! The time waited runs from the wait's first `contention_begin` (for a mutex
//! that spins, then sleeps, then spins again, the whole wait). The hold-event
//! probes (`*-acquire`, `*-release`) fire on every lock operation: they are
//! built on the kernel's lock functions, attached like `fbt`'s, so enabling
//! them needs fentry or kprobes, and where the kernel has neither the
//! provider says so ([`refusal`]).

use crate::kernel_sdt::test;
use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, Cmp, Prep, ProbeKind, Src, Test, LOCK_SLEPT};
use dtrace_sys::Features;

/// `(probe, argument types, the kernel functions it is built on)`.
pub const LOCKSTAT_PROBES: &[(&str, &[&str], &[&str])] = &[
    ("adaptive-acquire", &["struct mutex *"], &["mutex_lock"]),
    (
        "adaptive-acquire-error",
        &["struct mutex *", "int"],
        &["mutex_lock_interruptible", "mutex_lock_killable"],
    ),
    (
        "adaptive-block",
        &["struct mutex *", "uint64_t"],
        &["__mutex_lock_slowpath"],
    ),
    ("adaptive-release", &["struct mutex *"], &["mutex_unlock"]),
    (
        "adaptive-spin",
        &["struct mutex *", "uint64_t"],
        &["mutex_lock"],
    ),
    (
        "rw-acquire",
        &["struct rwlock *", "int"],
        &["_raw_read_lock", "_raw_write_lock"],
    ),
    (
        "rw-release",
        &["struct rwlock *", "int"],
        &["_raw_read_unlock", "_raw_write_unlock"],
    ),
    (
        "rw-spin",
        &["struct rwlock *", "uint64_t", "int"],
        &["queued_read_lock_slowpath", "queued_write_lock_slowpath"],
    ),
    ("spin-acquire", &["spinlock_t *"], &["_raw_spin_lock"]),
    ("spin-release", &["spinlock_t *"], &["_raw_spin_unlock"]),
    (
        "spin-spin",
        &["spinlock_t *", "uint64_t"],
        &["queued_spin_lock_slowpath"],
    ),
];

pub struct LockstatProvider;

/// The contention tracepoints' `LCB_F_*` flags.
const SPIN: i32 = 1 << 0;
const READ: i32 = 1 << 1;
const WRITE: i32 = 1 << 2;
const RT: i32 = 1 << 3;
const PERCPU: i32 = 1 << 4;
const MUTEX: i32 = 1 << 5;

const fn flags(op: Cmp, imm: i32) -> Test {
    test(Src::LockFlags, op, imm)
}

/// `contention_end(lock, ret)` acquired the lock.
const GOT: Test = test(Src::Raw(1), Cmp::Eq, 0);
const LOCK_TIME: &[Src] = &[Src::Raw(0), Src::LockWait];

/// The pre-conditions and arguments at `contention_end` of the contention
/// probes (see the module docs).
const CONTENTION: &[(&str, Prep)] = &[
    (
        "adaptive-spin",
        Prep {
            syscalls: &[],
            tests: &[flags(Cmp::Set, MUTEX), flags(Cmp::Clear, LOCK_SLEPT), GOT],
            args: LOCK_TIME,
        },
    ),
    (
        "adaptive-block",
        Prep {
            syscalls: &[],
            tests: &[flags(Cmp::Set, MUTEX), flags(Cmp::Set, LOCK_SLEPT), GOT],
            args: LOCK_TIME,
        },
    ),
    (
        "adaptive-acquire-error",
        Prep {
            syscalls: &[],
            tests: &[flags(Cmp::Set, MUTEX), test(Src::Raw(1), Cmp::Ne, 0)],
            args: &[Src::Raw(0), Src::RawInt(1)],
        },
    ),
    (
        "spin-spin",
        Prep {
            syscalls: &[],
            tests: &[
                flags(Cmp::Set, SPIN),
                flags(Cmp::Clear, READ | WRITE | RT | PERCPU | MUTEX | LOCK_SLEPT),
                GOT,
            ],
            args: LOCK_TIME,
        },
    ),
    (
        "rw-spin",
        Prep {
            syscalls: &[],
            tests: &[
                flags(Cmp::Set, SPIN),
                flags(Cmp::Set, READ | WRITE),
                flags(Cmp::Clear, RT | PERCPU | MUTEX | LOCK_SLEPT),
                GOT,
            ],
            args: &[Src::Raw(0), Src::LockWait, Src::LockReader],
        },
    ),
];

fn probe(index: usize) -> Option<ProbeTemplate> {
    let (name, args, _) = LOCKSTAT_PROBES.get(index)?;
    let kind = match CONTENTION.iter().find(|(n, _)| n == name) {
        Some((_, prep)) => ProbeKind::RawSdt {
            tp: "contention_end",
            prep: *prep,
        },
        None => ProbeKind::Lockstat { probe: index as u8 },
    };
    Some(ProbeTemplate {
        module: "vmlinux".into(),
        function: Default::default(),
        name: (*name).into(),
        kind,
        args: ArgDesc::natives(args),
        fields: Vec::new(),
    })
}

impl Provider for LockstatProvider {
    fn name(&self) -> &'static str {
        "lockstat"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::LOCKSTAT
    }

    fn lazy(&self) -> bool {
        true
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        (0..LOCKSTAT_PROBES.len()).filter_map(probe).collect()
    }

    fn find(&self, module: &str, function: &str, name: &str) -> Option<Vec<ProbeTemplate>> {
        if !function.is_empty() || !(module.is_empty() || module == "vmlinux") {
            return Some(Vec::new());
        }
        Some(
            LOCKSTAT_PROBES
                .iter()
                .position(|(n, _, _)| *n == name)
                .and_then(probe)
                .into_iter()
                .collect(),
        )
    }

    fn refusal(&self, probe: &dtrace_sema::ProbeInfo, features: &Features) -> Option<String> {
        match probe.kind {
            ProbeKind::Lockstat { probe } => Some(refusal(probe, features)),
            _ => None,
        }
    }
}

/// Why lockstat probe `index` cannot be enabled here, naming what is missing.
pub fn refusal(index: u8, features: &Features) -> String {
    let (name, _, funcs) = LOCKSTAT_PROBES
        .get(index as usize)
        .copied()
        .unwrap_or(("?", &[], &[]));
    let on = funcs.join(", ");
    match crate::fbt::refusal(features) {
        Some(why) => format!("{name} is built on kernel lock functions ({on}): {why}"),
        None => format!(
            "{name} is built on kernel lock functions ({on}), and dtrace does not yet \
             generate their hold-event attachments"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_follow_the_documented_names_and_arguments() {
        let l = LockstatProvider.list();
        assert_eq!(l.len(), 11);
        assert!(l
            .iter()
            .all(|p| p.module == "vmlinux" && p.function.is_empty()));
        let spin = LockstatProvider
            .find("", "", "spin-spin")
            .unwrap_or_default();
        assert_eq!(spin.len(), 1);
        let shown: Vec<&str> = spin[0].args.iter().map(|a| a.shown()).collect();
        assert_eq!(shown, vec!["spinlock_t *", "uint64_t"]);
        assert_eq!(LockstatProvider.find("", "", "BEGIN"), Some(Vec::new()));
        // Contention probes are served at contention_end; hold events refused.
        for (name, on_tp) in [
            ("adaptive-block", true),
            ("rw-spin", true),
            ("spin-acquire", false),
        ] {
            let p = LockstatProvider.find("", "", name).unwrap_or_default();
            let tp = matches!(
                p[0].kind,
                ProbeKind::RawSdt {
                    tp: "contention_end",
                    ..
                }
            );
            assert_eq!(tp, on_tp, "{name}");
        }
        let f = Features::default();
        assert!(refusal(0, &f).contains("mutex_lock"));
        assert!(refusal(0, &f).contains("kprobe"));
    }
}
