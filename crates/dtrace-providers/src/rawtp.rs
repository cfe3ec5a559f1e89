//! The `rawtp` provider: every kernel tracepoint as a raw tracepoint,
//! `rawtp:<group>::<event>`. A raw tracepoint passes the tracepoint's own
//! arguments (not its formatted record), typed from BTF: the prototype of the
//! `btf_trace_<event>` typedef is `void (*)(void *ctx, args...)`, and `args[]`
//! are the parameters after the context.
//!
//! Listing reads tracefs' `available_events` (like `sdt`), only when a
//! description could name a rawtp probe; argument types are read when a
//! description matches ([`Provider::resolve`]).

use crate::{ProbeTemplate, Provider};
use dtrace_ctypes::KernelBtfFiles;
use dtrace_sema::{ArgDesc, ProbeKind};
use dtrace_sys::tracefs::Tracefs;

pub struct RawtpProvider {
    /// The kernel's BTF, shared with the handle's type table.
    btf: KernelBtfFiles,
}

impl RawtpProvider {
    /// rawtp with argument types from `btf`.
    pub fn new(btf: KernelBtfFiles) -> RawtpProvider {
        RawtpProvider { btf }
    }
}

fn probe(group: String, event: String) -> ProbeTemplate {
    ProbeTemplate {
        module: group.into(),
        function: Default::default(),
        name: event.into(),
        kind: ProbeKind::RawTracepoint,
        args: Vec::new(),
        fields: Vec::new(),
    }
}

impl Provider for RawtpProvider {
    fn name(&self) -> &'static str {
        "rawtp"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::RAWTP
    }

    fn lazy(&self) -> bool {
        true
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        let Ok(events) = Tracefs::find().and_then(|t| t.available_events()) else {
            return Vec::new();
        };
        events.into_iter().map(|(g, e)| probe(g, e)).collect()
    }

    fn find(&self, module: &str, function: &str, name: &str) -> Option<Vec<ProbeTemplate>> {
        Some(
            crate::sdt::event_groups(module, function, name)
                .into_iter()
                .map(|g| probe(g, name.to_string()))
                .collect(),
        )
    }

    /// Argument types from BTF. A tracepoint BTF does not describe (no
    /// `btf_trace_<event>`) is not a raw tracepoint this kernel lets BPF attach
    /// to by name, and is left out of the match.
    fn resolve(&self, t: &mut ProbeTemplate) -> Result<(), String> {
        if t.kind != ProbeKind::RawTracepoint || !t.args.is_empty() {
            return Ok(());
        }
        let args = self
            .btf
            .raw_tracepoint_args(&t.name)
            .ok_or_else(|| format!("raw tracepoint {} has no BTF prototype", t.name))?;
        t.args = ArgDesc::natives(&args[..args.len().min(10)]);
        Ok(())
    }
}
