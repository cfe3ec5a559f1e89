//! Attaching a loaded program where its probes live (the provider "enable" op).
//!
//! Every attachment is an owned value; dropping it detaches (links close, perf
//! events are disabled and closed), so an error part-way leaves nothing attached.

use crate::procmap::UprobeSite;
use dtrace_codegen::Attach;
use dtrace_sys::perf::hardware_attr;
use dtrace_sys::tracefs::Tracefs;
use dtrace_sys::uprobe::{attach_multi, UprobePoint};
use dtrace_sys::{cpu, Features, Link, PerfEvent, ProbePoint, ProgFd, SysRef};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One live attachment.
#[derive(Debug)]
pub enum Attachment {
    /// A BPF link: raw tracepoint or fentry/fexit.
    RawTracepoint(Link),
    Perf(Vec<PerfEvent>),
    /// uprobe_multi links, one per (object file, process).
    Uprobes(Vec<Link>),
}

/// Why a program could not be attached, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachError(pub String);

impl std::fmt::Display for AttachError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Attach `prog` as `attach` says. `Begin`/`End` are not attached (they are run).
/// `sites` are where a uprobe program's probes are, with their cookies.
pub fn attach(
    sys: &SysRef,
    features: &Features,
    prog: &ProgFd,
    attach: &Attach,
    sites: &[(UprobeSite, u64)],
) -> Result<Option<Attachment>, AttachError> {
    match attach {
        Attach::Uprobe { ret } => attach_uprobes(prog, *ret, sites).map(Some),
        Attach::Begin | Attach::End => Ok(None),
        Attach::RawTracepoint(tp) => {
            if !features.raw_tp {
                return Err(AttachError(
                    "this kernel does not allow BPF programs on raw tracepoints".into(),
                ));
            }
            prog.attach_raw_tp(tp)
                .map(|l| Some(Attachment::RawTracepoint(l)))
                .map_err(|e| AttachError(format!("failed to attach to raw tracepoint {tp}: {e}")))
        }
        Attach::CpuClock {
            period_ns,
            all_cpus,
        } => {
            let (period_ns, all_cpus) = (*period_ns, *all_cpus);
            let online = cpu::online_cpus()
                .map_err(|e| AttachError(format!("cannot read online CPUs: {e}")))?;
            let cpus: Vec<u32> = if all_cpus {
                online
            } else {
                online.into_iter().take(1).collect()
            };
            let mut events = Vec::with_capacity(cpus.len());
            for c in cpus {
                let mut ev = PerfEvent::cpu_clock(sys, period_ns, c).map_err(|e| {
                    AttachError(format!("cannot open cpu-clock event on CPU {c}: {e}"))
                })?;
                ev.attach(prog, 0).map_err(|e| {
                    AttachError(format!("cannot attach to cpu-clock event on CPU {c}: {e}"))
                })?;
                events.push(ev);
            }
            Ok(Some(Attachment::Perf(events)))
        }
        Attach::Tracepoint { event_id } => tracepoint(sys, prog, *event_id).map(Some),
        Attach::Tracepoints { group, events } => {
            let fs = Tracefs::find().map_err(|e| AttachError(e.to_string()))?;
            let mut all = Vec::with_capacity(events.len());
            for event in events {
                let id = fs.event_id(group, event).map_err(|e| {
                    AttachError(format!("cannot find tracepoint {group}:{event}: {e}"))
                })?;
                match tracepoint(sys, prog, id)? {
                    Attachment::Perf(evs) => all.extend(evs),
                    Attachment::RawTracepoint(_) | Attachment::Uprobes(_) => {}
                }
            }
            Ok(Some(Attachment::Perf(all)))
        }
        Attach::Fentry { func, ret } => {
            let what = format!("{} {func}", if *ret { "fexit" } else { "fentry" });
            prog.attach_tracing(&what)
                .map(|l| Some(Attachment::RawTracepoint(l)))
                .map_err(|e| AttachError(format!("failed to attach: {e}")))
        }
        Attach::Kprobe { func, ret } => {
            let point = ProbePoint::Kernel { func, offset: 0 };
            let what = if *ret { "kretprobe" } else { "kprobe" };
            let mut ev = PerfEvent::probe(sys, &point, *ret, -1)
                .map_err(|e| AttachError(format!("cannot create {what} on {func}: {e}")))?;
            ev.attach(prog, 0)
                .map_err(|e| AttachError(format!("cannot attach to {what} on {func}: {e}")))?;
            Ok(Some(Attachment::Perf(vec![ev])))
        }
        Attach::HwCounter {
            config,
            count,
            mode,
        } => {
            let online = cpu::online_cpus()
                .map_err(|e| AttachError(format!("cannot read online CPUs: {e}")))?;
            let attr = hardware_attr(*config, *count, *mode != 2, *mode != 1);
            let mut events = Vec::with_capacity(online.len());
            for c in online {
                let mut ev = PerfEvent::open(sys, &attr, -1, c as i32).map_err(|e| {
                    AttachError(format!("cannot open hardware counter on CPU {c}: {e}"))
                })?;
                ev.attach(prog, 0).map_err(|e| {
                    AttachError(format!("cannot attach to hardware counter on CPU {c}: {e}"))
                })?;
                events.push(ev);
            }
            Ok(Some(Attachment::Perf(events)))
        }
    }
}

/// One perf event on tracepoint `event_id` running `prog`.
fn tracepoint(sys: &SysRef, prog: &ProgFd, event_id: u32) -> Result<Attachment, AttachError> {
    {
        {
            // One perf event serves every CPU: the kernel keeps the program on
            // the tracepoint itself.
            let cpu = cpu::online_cpus()
                .ok()
                .and_then(|c| c.first().copied())
                .unwrap_or(0);
            let mut ev = PerfEvent::tracepoint(sys, event_id, cpu).map_err(|e| {
                AttachError(format!("cannot open tracepoint event {event_id}: {e}"))
            })?;
            ev.attach(prog, 0).map_err(|e| {
                AttachError(format!("cannot attach to tracepoint event {event_id}: {e}"))
            })?;
            Ok(Attachment::Perf(vec![ev]))
        }
    }
}

/// The return-site markers of return probes' `sites` (see
/// `UprobeSite::returns`): `marker` on each return site, its cookie
/// `site cookie << 32 | offset in the function`. One link per (file, process).
pub fn attach_return_markers(
    marker: &ProgFd,
    sites: &[(UprobeSite, u64)],
) -> Result<Attachment, AttachError> {
    let mut groups: BTreeMap<(PathBuf, u32), Vec<UprobePoint>> = BTreeMap::new();
    for (s, k) in sites {
        for r in &s.returns {
            groups
                .entry((s.path.clone(), s.pid))
                .or_default()
                .push(UprobePoint {
                    offset: s.offset + r,
                    ref_ctr_offset: 0,
                    cookie: (k << 32) | (r & 0xffff_ffff),
                });
        }
    }
    let mut links = Vec::with_capacity(groups.len());
    for ((path, pid), points) in groups {
        match attach_multi(marker, &path, &points, false, pid) {
            Ok(link) => links.push(link),
            Err(e) if process_gone(&e, pid) => {}
            Err(e) => return Err(AttachError(e.to_string())),
        }
    }
    Ok(Attachment::Uprobes(links))
}

/// One uprobe_multi link per (file, process).
fn attach_uprobes(
    prog: &ProgFd,
    ret: bool,
    sites: &[(UprobeSite, u64)],
) -> Result<Attachment, AttachError> {
    let mut groups: BTreeMap<(PathBuf, u32), Vec<UprobePoint>> = BTreeMap::new();
    for (s, k) in sites {
        groups
            .entry((s.path.clone(), s.pid))
            .or_default()
            .push(UprobePoint {
                offset: s.offset,
                ref_ctr_offset: s.ref_ctr_offset,
                cookie: *k,
            });
    }
    let mut links = Vec::with_capacity(groups.len());
    for ((path, pid), points) in groups {
        // Two probes on one instruction (`entry` and offset `0`) are two
        // points: the program runs once for each, with its own cookie.
        match attach_multi(prog, &path, &points, ret, pid) {
            Ok(link) => links.push(link),
            Err(e) if process_gone(&e, pid) => {}
            Err(e) => return Err(AttachError(e.to_string())),
        }
    }
    Ok(Attachment::Uprobes(links))
}

/// Whether a link failed only because its process has exited since its
/// probes were matched (a short-lived process among many a provider glob
/// matched): its probes can no longer fire, so there is nothing to attach
/// and nothing to report, as DTrace drops a process that goes away.
fn process_gone(e: &dtrace_sys::uprobe::UprobeError, pid: u32) -> bool {
    pid != 0 && e.errno.is_no_process()
}
