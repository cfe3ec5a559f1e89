//! The `cpc` provider: CPU performance counter probes named
//! `cpc:::<event>-<mode>-<count>` (DTrace's format): the probe fires on a CPU
//! every `count` occurrences of `event` there, counted in `user` mode,
//! `kernel` mode or `all`. Events are perf's generic hardware events. `arg0`
//! is the kernel PC and `arg1` the user PC at the overflow, as for `profile`
//! (the same trampoline serves both).
//!
//! `dtrace -l` lists each event once with an example (artificially large)
//! count; any count is made on demand. A machine without a hardware PMU
//! (virtual machines often have only software events such as cpu-clock)
//! refuses to enable them, in one line ([`refusal`]).

use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, ProbeKind};

/// `(name, perf PERF_COUNT_HW_* config)` of the generic hardware events.
pub const CPC_EVENTS: &[(&str, u8)] = &[
    ("cycles", 0),
    ("instructions", 1),
    ("cache_references", 2),
    ("cache_misses", 3),
    ("branch_instructions", 4),
    ("branch_misses", 5),
    ("bus_cycles", 6),
    ("stalled_cycles_frontend", 7),
    ("stalled_cycles_backend", 8),
    ("ref_cycles", 9),
];

/// The modes, by `ProbeKind::Cpc::mode`.
const MODES: [&str; 3] = ["all", "user", "kernel"];

/// The count shown by `dtrace -l`.
const EXAMPLE_COUNT: u64 = 1_000_000_000;

pub struct CpcProvider;

/// `<event>-<mode>-<count>` as a probe, if it names one.
fn parse(name: &str) -> Option<ProbeTemplate> {
    let (rest, count) = name.rsplit_once('-')?;
    let (event, mode) = rest.rsplit_once('-')?;
    let count: u64 = count.parse().ok().filter(|c| *c > 0)?;
    let mode = MODES.iter().position(|m| *m == mode)? as u8;
    let (_, config) = CPC_EVENTS.iter().find(|(e, _)| *e == event)?;
    Some(ProbeTemplate {
        module: Default::default(),
        function: Default::default(),
        name: name.into(),
        kind: ProbeKind::Cpc {
            event: *config,
            mode,
            count,
        },
        args: ArgDesc::natives(&["uint64_t", "uint64_t"]),
        fields: Vec::new(),
    })
}

impl Provider for CpcProvider {
    fn name(&self) -> &'static str {
        "cpc"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::CPC
    }

    fn lazy(&self) -> bool {
        true
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        CPC_EVENTS
            .iter()
            .filter_map(|(e, _)| parse(&format!("{e}-all-{EXAMPLE_COUNT}")))
            .collect()
    }

    fn find(&self, module: &str, function: &str, name: &str) -> Option<Vec<ProbeTemplate>> {
        if !module.is_empty() || !function.is_empty() {
            return Some(Vec::new());
        }
        Some(parse(name).into_iter().collect())
    }

    fn create(&self, module: &str, function: &str, name: &str) -> Option<ProbeTemplate> {
        if !module.is_empty() || !function.is_empty() {
            return None;
        }
        parse(name)
    }

    fn refusal(
        &self,
        _probe: &dtrace_sema::ProbeInfo,
        _features: &dtrace_sys::Features,
    ) -> Option<String> {
        refusal()
    }
}

/// Why hardware-counter probes cannot be enabled here; `None` when the
/// machine has a hardware PMU.
pub fn refusal() -> Option<String> {
    if dtrace_sys::perf::has_hardware_pmu() {
        return None;
    }
    Some(
        "this machine has no hardware performance counters (perf has no 'cpu' PMU, \
         only software events such as cpu-clock: profile-N probes sample that)"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_names_are_event_mode_count() {
        let p = parse("cycles-user-5000").map(|t| t.kind);
        assert_eq!(
            p,
            Some(ProbeKind::Cpc {
                event: 0,
                mode: 1,
                count: 5000
            })
        );
        let p = parse("cache_misses-kernel-10").map(|t| t.kind);
        assert!(matches!(
            p,
            Some(ProbeKind::Cpc {
                event: 3,
                mode: 2,
                ..
            })
        ));
        assert!(parse("cycles-user-0").is_none());
        assert!(parse("cycles-sometimes-10").is_none());
        assert!(parse("nosuch-all-10").is_none());
        assert!(parse("BEGIN").is_none());
        let l = CpcProvider.list();
        assert_eq!(l.len(), CPC_EVENTS.len());
        assert_eq!(l[0].name, "cycles-all-1000000000");
    }
}
