//! Providers: each one lists its probes (with argument types), creates on-demand
//! probes, and says which trampoline kind serves them ([`dtrace_sema::ProbeKind`]).
//! [`Catalog`] numbers every probe and matches probe descriptions.
//!
//! Architecture invariant: probe IDs are assigned once per [`Catalog`] and never
//! change for its life; on-demand probes get the next free ID.

pub mod attach;
pub mod dtrace_provider;
pub mod pdesc;
pub mod profile;
pub mod stability;
pub mod syscall;
pub mod syscalls_x86_64;

pub use pdesc::{glob, DescError, ProbeDesc};
pub use stability::{Attr, DepClass, ProviderAttrs, Stability};

use dtrace_sema::{ProbeInfo, ProbeKind};

/// A probe as a provider describes it, before the catalog gives it an ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeTemplate {
    pub module: String,
    pub function: String,
    pub name: String,
    pub kind: ProbeKind,
    pub arg_types: Vec<String>,
}

/// The provider operations (as libdtrace's provider ops table).
pub trait Provider {
    fn name(&self) -> &'static str;
    /// The provider's stability attributes (its chapter's "Stability" table).
    fn attributes(&self) -> ProviderAttrs;
    /// Every probe listed by `dtrace -l`.
    fn list(&self) -> Vec<ProbeTemplate>;
    /// A probe made on demand for an exact (glob-free) description, e.g. `tick-7ms`.
    fn create(&self, module: &str, function: &str, name: &str) -> Option<ProbeTemplate> {
        let _ = (module, function, name);
        None
    }
}

/// All providers and their numbered probes.
pub struct Catalog {
    providers: Vec<Box<dyn Provider>>,
    probes: Vec<ProbeInfo>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}

impl Catalog {
    /// The built-in providers, probes numbered from 1 in provider order.
    pub fn new() -> Catalog {
        let providers: Vec<Box<dyn Provider>> = vec![
            Box::new(dtrace_provider::DtraceProvider),
            Box::new(syscall::SyscallProvider),
            Box::new(profile::ProfileProvider),
        ];
        let mut c = Catalog {
            providers,
            probes: Vec::new(),
        };
        for i in 0..c.providers.len() {
            let name = c.providers[i].name();
            for t in c.providers[i].list() {
                c.push(name, t);
            }
        }
        c
    }

    fn push(&mut self, provider: &str, t: ProbeTemplate) -> ProbeInfo {
        let info = ProbeInfo {
            id: self.probes.len() as u32 + 1,
            provider: provider.to_string(),
            module: t.module,
            function: t.function,
            name: t.name,
            kind: t.kind,
            arg_types: t.arg_types,
        };
        self.probes.push(info.clone());
        info
    }

    /// The attributes of the provider named `provider`, if there is one.
    pub fn attributes(&self, provider: &str) -> Option<ProviderAttrs> {
        self.providers
            .iter()
            .find(|p| p.name() == provider)
            .map(|p| p.attributes())
    }

    /// Every probe known so far, by ID.
    pub fn probes(&self) -> &[ProbeInfo] {
        &self.probes
    }

    pub fn by_id(&self, id: u32) -> Option<&ProbeInfo> {
        self.probes.get((id as usize).checked_sub(1)?)
    }

    /// The probes a description matches, creating an on-demand probe if the
    /// description is exact and a provider can make it.
    pub fn matches(&mut self, desc: &ProbeDesc) -> Vec<ProbeInfo> {
        let found: Vec<ProbeInfo> = self
            .probes
            .iter()
            .filter(|p| desc.matches(&p.provider, &p.module, &p.function, &p.name))
            .cloned()
            .collect();
        if !found.is_empty() || !desc.is_exact() {
            return found;
        }
        let mut made = None;
        for p in &self.providers {
            if desc.provider.is_empty() || desc.provider == p.name() {
                if let Some(t) = p.create(&desc.module, &desc.function, &desc.name) {
                    made = Some((p.name(), t));
                    break;
                }
            }
        }
        match made {
            Some((name, t)) => vec![self.push(name, t)],
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_and_matching() {
        let mut c = Catalog::new();
        assert_eq!(c.by_id(1).map(|p| p.name.as_str()), Some("BEGIN"));
        assert_eq!(c.by_id(2).map(|p| p.name.as_str()), Some("END"));
        assert_eq!(c.by_id(3).map(|p| p.name.as_str()), Some("ERROR"));
        let m = c.matches(&ProbeDesc::parse("BEGIN").unwrap());
        assert_eq!(m.len(), 1);
        let m = c.matches(&ProbeDesc::parse("syscall::getppid:entry").unwrap());
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].kind, ProbeKind::SyscallEntry { nr: 110 });
        let all = c.matches(&ProbeDesc::parse("syscall:::entry").unwrap());
        assert_eq!(all.len(), syscalls_x86_64::SYSCALLS_X86_64.len());
        let before = c.probes().len();
        let t = c.matches(&ProbeDesc::parse("tick-7ms").unwrap());
        assert_eq!(t.len(), 1);
        assert_eq!(
            t[0].kind,
            ProbeKind::Tick {
                period_ns: 7_000_000
            }
        );
        assert_eq!(t[0].id as usize, before + 1);
        // Asking again finds the same probe rather than making another.
        assert_eq!(
            c.matches(&ProbeDesc::parse("profile:::tick-7ms").unwrap())[0].id,
            t[0].id
        );
        assert!(c.matches(&ProbeDesc::parse("tick-*").unwrap()).len() >= 6);
        assert!(c
            .matches(&ProbeDesc::parse("nosuch:::probe").unwrap())
            .is_empty());
        assert!(c
            .matches(&ProbeDesc::parse("profile:::tick-1ns").unwrap())
            .is_empty());
        assert_eq!(c.attributes("syscall"), Some(stability::SYSCALL));
        assert_eq!(c.attributes("dtrace"), Some(stability::DTRACE));
        assert_eq!(c.attributes("profile"), Some(stability::PROFILE));
        assert_eq!(c.attributes("nosuch"), None);
    }
}
