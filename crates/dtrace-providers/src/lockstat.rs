//! The `lockstat` provider: `lockstat:vmlinux::<probe>` for kernel lock events
//! (module `vmlinux`, function empty, as DTrace documents), with the
//! documented argument types. Each probe is built on the kernel's lock
//! functions (mutexes for adaptive locks, spinlocks, reader-writer locks),
//! attached like `fbt`'s; enabling needs fentry or kprobes, and where the
//! kernel has neither the provider says so ([`refusal`]).

use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, ProbeKind};
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

fn probe(index: usize) -> Option<ProbeTemplate> {
    let (name, args, _) = LOCKSTAT_PROBES.get(index)?;
    Some(ProbeTemplate {
        module: "vmlinux".into(),
        function: String::new(),
        name: (*name).into(),
        kind: ProbeKind::Lockstat { probe: index as u8 },
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
             generate their lock-event attachments"
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
        let f = Features::default();
        assert!(refusal(0, &f).contains("mutex_lock"));
        assert!(refusal(0, &f).contains("kprobe"));
    }
}
