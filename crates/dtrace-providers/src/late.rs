//! Descriptions matched again while tracing: a description naming a
//! process's pid or USDT providers (`pid123::go:entry`, `myprov123:::`) gains
//! the probes of objects the process maps later (dlopen); a provider glob
//! over every process's USDT providers (`myprov*:::`) also gains those of
//! processes that start later. See the session's dynamic-linker watch
//! (`dtrace_sys::rtld`), which says when and in which process to look.

use crate::pdesc::{glob, ProbeDesc};
use crate::{procmap, scans_processes, usdt, Catalog, ProbeInfo};

/// How a description may gain user-space probes while tracing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Late {
    /// In this process only.
    Process(u32),
    /// In any process (a USDT provider glob).
    Every,
}

/// Which kinds of user-space probe a description can match: (entry, offset
/// or USDT probes; return probes).
pub fn late_kinds(desc: &ProbeDesc) -> (bool, bool) {
    let prefix = procmap::split_pid(&desc.provider).map_or(desc.provider.as_str(), |(p, _)| p);
    let pid = prefix.is_empty() || glob(prefix.as_bytes(), b"pid");
    let names_return = desc.name.is_empty() || glob(desc.name.as_bytes(), b"return");
    let only_return = pid && prefix == "pid" && desc.name == "return";
    (!only_return, pid && names_return)
}

impl Catalog {
    /// Whether `desc` may gain user-space probes while tracing, and where.
    pub fn late(&self, desc: &ProbeDesc) -> Option<Late> {
        if let Some((prefix, pid)) = procmap::split_pid(&desc.provider) {
            // `syscall123` names no process: a catalog provider's name does
            // not take one.
            let kernel = self.providers.iter().any(|p| p.name() == prefix);
            return (!kernel).then_some(Late::Process(pid));
        }
        let known = self.providers.iter().map(|p| p.name());
        scans_processes(&desc.provider, known.chain(["pid"])).then_some(Late::Every)
    }

    /// The user-space probes `desc` matches in process `pid` now (numbered
    /// as they are first seen; probes seen before keep their IDs). Failures
    /// to read the process, or a module it does not have, match nothing.
    /// Objects `none` holds are known to have no USDT probes.
    pub fn late_matches(
        &mut self,
        desc: &ProbeDesc,
        pid: u32,
        none: &mut usdt::NoNotes,
    ) -> Vec<ProbeInfo> {
        match self.late(desc) {
            Some(Late::Process(p)) if p == pid => self.matches_checked(desc).unwrap_or_default(),
            Some(Late::Every) => {
                let found = usdt::one_process(
                    &desc.provider,
                    pid,
                    &desc.module,
                    &desc.function,
                    &desc.name,
                    none,
                );
                self.register_proc(found)
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> ProbeDesc {
        ProbeDesc::parse(s).expect("description")
    }

    #[test]
    fn descriptions_that_gain_probes() {
        let c = Catalog::new();
        assert_eq!(c.late(&d("pid42::go:entry")), Some(Late::Process(42)));
        assert_eq!(c.late(&d("myprov42:::")), Some(Late::Process(42)));
        assert_eq!(c.late(&d("myprov*:::")), Some(Late::Every));
        assert_eq!(c.late(&d("syscall::read:entry")), None);
        assert_eq!(c.late(&d("*:::entry")), None);
    }

    #[test]
    fn entry_and_return_kinds() {
        assert_eq!(late_kinds(&d("pid42::go:entry")), (true, false));
        assert_eq!(late_kinds(&d("pid42::go:return")), (false, true));
        assert_eq!(late_kinds(&d("pid42::go:")), (true, true));
        assert_eq!(late_kinds(&d("myprov42:::")), (true, false));
        assert_eq!(late_kinds(&d("p*42:::return")), (true, true));
    }
}
