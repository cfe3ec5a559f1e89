//! What the SDT providers DTrace defines over the kernel (`proc`, `sched`, `io`)
//! share: each is a static table of probes, one row per probe, naming the raw
//! tracepoint that fires at the same moment in the same context, the
//! pre-condition and native arguments its trampoline presents ([`Prep`]), and
//! the argument descriptions DTrace documents (translated types such as
//! `psinfo_t *` from a native `struct task_struct *`, by the translators of the
//! built-in D libraries). Probes DTrace documents that no tracepoint can
//! present faithfully are listed apart, with the reason enabling them fails.
//!
//! All probes are `<provider>:vmlinux::<name>` (module `vmlinux`, function empty).

use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, Cmp, Prep, ProbeKind, Src, Test};

/// One argument description: `args[i]` is `xlate` (if any) translated from
/// native argument `mapping` of type `native`.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    pub native: &'static str,
    pub xlate: Option<&'static str>,
    pub mapping: u8,
    /// The native `string` is a user-space address.
    pub user: bool,
}

/// `args[i]` as native argument `mapping`, of type `native`.
pub const fn native(native: &'static str, mapping: u8) -> Arg {
    Arg {
        native,
        xlate: None,
        mapping,
        user: false,
    }
}

/// `args[i]` as `xlate`, translated from native argument `mapping`.
pub const fn xlate(native: &'static str, xlate: &'static str, mapping: u8) -> Arg {
    Arg {
        native,
        xlate: Some(xlate),
        mapping,
        user: false,
    }
}

/// A user-space string (a path).
pub const fn user_string(mapping: u8) -> Arg {
    Arg {
        native: "string",
        xlate: None,
        mapping,
        user: true,
    }
}

/// `value op imm`.
pub const fn test(value: Src, op: Cmp, imm: i32) -> Test {
    Test { value, op, imm }
}

/// One probe of a kernel SDT provider.
#[derive(Debug, Clone, Copy)]
pub struct SdtProbe {
    pub name: &'static str,
    /// The raw tracepoint it is built on.
    pub tp: &'static str,
    pub prep: Prep,
    pub args: &'static [Arg],
}

/// A probe built on a tracepoint that only some kernels have (a file system's,
/// a driver's): listed when tracefs has `events/<group>/<tp>`, else unavailable
/// for the reason `missing` gives.
#[derive(Debug, Clone, Copy)]
pub struct Optional {
    pub probe: SdtProbe,
    pub group: &'static str,
    pub missing: &'static str,
}

impl Optional {
    /// Whether this kernel has the tracepoint (one `stat` of its tracefs directory).
    fn present(&self) -> bool {
        dtrace_sys::tracefs::Tracefs::find()
            .map(|t| t.has_event(self.group, self.probe.tp))
            .unwrap_or(false)
    }
}

/// A probe DTrace documents that this provider cannot offer, and why.
#[derive(Debug, Clone, Copy)]
pub struct Unavailable {
    pub name: &'static str,
    pub why: &'static str,
}

/// The listed probes of a table.
pub fn list(table: &[SdtProbe]) -> Vec<ProbeTemplate> {
    table
        .iter()
        .map(|p| ProbeTemplate {
            module: "vmlinux".into(),
            function: Default::default(),
            name: p.name.into(),
            kind: ProbeKind::RawSdt {
                tp: p.tp,
                prep: p.prep,
            },
            args: p
                .args
                .iter()
                .map(|a| ArgDesc {
                    native: a.native.into(),
                    xlate: a.xlate.map(str::to_string),
                    mapping: a.mapping,
                    user: a.user,
                })
                .collect(),
            fields: Vec::new(),
        })
        .collect()
}

/// A kernel SDT provider (proc, sched, io): its probes are rows of a table,
/// each on a raw tracepoint, so the provider operations are the same for all
/// of them and only the tables differ.
pub struct TableProvider {
    pub name: &'static str,
    pub probes: &'static [SdtProbe],
    /// Probes DTrace documents that have no faithful kernel event here.
    pub unavailable: &'static [Unavailable],
    /// Probes on tracepoints some kernels lack.
    pub optional: &'static [Optional],
}

impl Provider for TableProvider {
    fn name(&self) -> &'static str {
        self.name
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::KERNEL_SDT
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        let mut all = list(self.probes);
        for o in self.optional.iter().filter(|o| o.present()) {
            all.extend(list(std::slice::from_ref(&o.probe)));
        }
        all
    }

    fn unavailable(&self, name: &str) -> Option<&'static str> {
        why(self.unavailable, name).or_else(|| {
            self.optional
                .iter()
                .find(|o| o.probe.name == name && !o.present())
                .map(|o| o.missing)
        })
    }
}

/// Why `name` is unavailable, if the table of unavailable probes has it.
pub fn why(unavailable: &[Unavailable], name: &str) -> Option<&'static str> {
    unavailable.iter().find(|u| u.name == name).map(|u| u.why)
}

/// Every table's probes are consistent: a native argument a description maps
/// is filled by the trampoline, and names are unique. (Used by each provider's
/// unit test.)
#[cfg(test)]
pub fn check_table(table: &[SdtProbe], unavailable: &[Unavailable]) {
    for (i, p) in table.iter().enumerate() {
        assert!(
            table[..i].iter().all(|q| q.name != p.name),
            "{} listed twice",
            p.name
        );
        for a in p.args {
            assert!(
                usize::from(a.mapping) < p.prep.args.len(),
                "{}: argument {} is not filled",
                p.name,
                a.mapping
            );
        }
        assert!(why(unavailable, p.name).is_none(), "{} both ways", p.name);
    }
}
