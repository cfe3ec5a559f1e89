//! What enabling user-space probes while tracing needs, apart from the
//! session: second descriptors of the uprobe programs (with their return-site
//! markers) and of the maps their table rows go to. The links it makes are
//! the caller's to keep, and go when the caller drops them; they must go
//! before the session detaches (END sees every probe detached).

use crate::error::RuntimeError;
use crate::session::Session;
use dtrace_codegen::Attach;
use dtrace_providers::attach::{attach, attach_return_markers, Attachment};
use dtrace_providers::procmap::UprobeSite;
use dtrace_sys::{Features, MapFd, ProgFd, SysRef};
use std::collections::BTreeMap;

/// A uprobe program: its descriptor, attachment kind and return-site marker.
struct Prog {
    fd: ProgFd,
    attach: Attach,
    marker: Option<ProgFd>,
}

/// Attaching user-space probes and writing their table rows from anywhere
/// (another thread), without the [`Session`].
pub struct UprobeHandles {
    sys: SysRef,
    features: Features,
    progs: BTreeMap<usize, Prog>,
    maps: BTreeMap<usize, MapFd>,
}

impl Session {
    /// Handles of the uprobe programs `progs` and the maps `maps` (indices
    /// as the compiled program numbers them).
    pub fn uprobe_handles(
        &self,
        progs: &[usize],
        maps: &[usize],
    ) -> Result<UprobeHandles, RuntimeError> {
        let dup = |e: std::io::Error| RuntimeError::Io(format!("cannot duplicate: {e}"));
        let mut out = UprobeHandles {
            sys: self.sys().clone(),
            features: self.features().clone(),
            progs: BTreeMap::new(),
            maps: BTreeMap::new(),
        };
        for &i in progs {
            let Some((fd, attach, marker)) = self.uprobe_prog(i) else {
                return Err(RuntimeError::Attach(format!("no program {i}")));
            };
            let marker = match marker {
                Some(m) => Some(m.try_clone().map_err(dup)?),
                None => None,
            };
            out.progs.insert(
                i,
                Prog {
                    fd: fd.try_clone().map_err(dup)?,
                    attach: attach.clone(),
                    marker,
                },
            );
        }
        for &i in maps {
            let m = self
                .map_fd(i)
                .ok_or_else(|| RuntimeError::Io(format!("no map {i}")))?;
            out.maps.insert(i, m.try_clone().map_err(dup)?);
        }
        Ok(out)
    }
}

impl UprobeHandles {
    /// Attach program `prog` at `sites` (each with its cookie); the links.
    pub fn attach_sites(
        &self,
        prog: usize,
        sites: &[(UprobeSite, u64)],
    ) -> Result<Vec<Attachment>, RuntimeError> {
        let p = self
            .progs
            .get(&prog)
            .ok_or_else(|| RuntimeError::Attach(format!("no program {prog}")))?;
        let mut out = Vec::new();
        if sites.is_empty() || !matches!(p.attach, Attach::Uprobe { .. }) {
            return Ok(out);
        }
        if let Some(m) = &p.marker {
            out.push(attach_return_markers(m, sites).map_err(|e| RuntimeError::Attach(e.0))?);
        }
        match attach(&self.sys, &self.features, &p.fd, &p.attach, sites) {
            Ok(Some(at)) => out.push(at),
            Ok(None) => {}
            Err(e) => return Err(RuntimeError::Attach(e.0)),
        }
        Ok(out)
    }

    /// Write one entry of map `map`.
    pub fn update_map(&self, map: usize, key: &[u8], value: &[u8]) -> Result<(), RuntimeError> {
        let m = self
            .maps
            .get(&map)
            .ok_or_else(|| RuntimeError::Io(format!("no map {map}")))?;
        m.update(key, value, dtrace_sys::UpdateFlags::Any)
            .map_err(|e| RuntimeError::Io(format!("cannot write {}: {e}", m.spec().name)))
    }
}
