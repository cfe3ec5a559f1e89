//! The session: every kernel object of one tracing run.

use crate::aggs::AggStore;
use crate::error::RuntimeError;
use crate::load::{create_map, load_program};
use dtrace_codegen::layout::{
    DROP_AGG, DROP_DBLERROR, DROP_DYNVAR, DROP_RINGBUF, DROP_SLOTS, DROP_SPEC, DROP_SPECBUSY,
    G_STATE, G_WALLTIME_OFFSET, SPEC_GEN, STATE_ACTIVE, STATE_INACTIVE,
};
use dtrace_codegen::{Attach, CompiledProgram};
use dtrace_providers::attach::{attach, attach_return_markers, Attachment};
use dtrace_providers::procmap::UprobeSite;
use dtrace_sys::{clock, map, Features, MapFd, ProgFd, RingBuf, SysRef};
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

/// One aggregation's entries: each key with its value on every possible CPU
/// (one flat buffer, see `dtrace_desc::AggEntries`).
pub use dtrace_codegen::desc::AggEntries;

/// Drop counts for one CPU since the previous [`Session::drops`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Drops {
    pub cpu: u32,
    pub ringbuf: u64,
    pub agg: u64,
    pub dynvar: u64,
    /// Speculative records over `specsize`.
    pub spec: u64,
    /// Failed speculation() calls: some ID draining ("busy"), or none at all.
    pub spec_busy: u64,
    pub spec_unavail: u64,
    /// Faults in ERROR clauses.
    pub dbl_error: u64,
}

/// A loaded (and, after [`Session::attach`], attached) D program.
///
/// Field order is drop order: attachments go first, so probes stop firing before
/// the programs and maps they use are closed.
pub struct Session {
    attachments: Vec<Attachment>,
    progs: Vec<(ProgFd, Attach)>,
    /// Where each uprobe program's probes attach, with their cookies
    /// (parallel to `progs`).
    uprobe_sites: Vec<Vec<(UprobeSite, u64)>>,
    /// Each return-uprobe program's return-site marker (parallel to `progs`).
    markers: Vec<Option<ProgFd>>,
    ringbuf: RingBuf,
    ringbuf_size: u64,
    maps: Vec<MapFd>,
    sys: SysRef,
    features: Features,
    drops_map: usize,
    spec_map: usize,
    globals_map: usize,
    aggs: AggStore,
    last_drops: BTreeMap<(u32, u32), u64>,
    verifier_logs: Vec<(String, String)>,
}

/// How [`Session::load`] loads the programs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// `-x bpflog`: keep each program's verifier log, starting with a buffer of
    /// this many bytes (`-x bpflogsize`).
    pub bpflog: Option<usize>,
    /// `-x bpflogsize`: the largest verifier log asked for (`None`: DTrace's
    /// default, 16 MiB - 1).
    pub bpflogsize: Option<usize>,
    /// Where each user-space (pid, usdt) probe attaches, by probe ID: its
    /// sites, each with the index of the argument layout it uses.
    pub uprobe_sites: BTreeMap<u32, Vec<(UprobeSite, u16)>>,
    /// `bufresize=manual`: a principal buffer that cannot be allocated at its
    /// size is an error. Otherwise (`auto`) its size is halved until it can.
    pub bufresize_manual: bool,
}

/// The smallest principal buffer `bufresize=auto` lowers to.
const MIN_RINGBUF: u32 = 4096;

/// Creates and maps the principal buffer `spec`, halving its size while the
/// kernel cannot allocate it unless `manual`.
fn principal_buffer(
    sys: &SysRef,
    spec: &dtrace_codegen::MapSpec,
    manual: bool,
) -> Result<(MapFd, RingBuf), RuntimeError> {
    let mut spec = spec.clone();
    loop {
        let made = create_map(sys, &spec).and_then(|m| {
            RingBuf::new(&m)
                .map(|rb| (m, rb))
                .map_err(|e| RuntimeError::Io(format!("cannot map the ring buffer: {e}")))
        });
        match made {
            Err(e) if !manual && spec.max_entries > MIN_RINGBUF => {
                let _ = e;
                spec.max_entries /= 2;
            }
            Err(e) => {
                return Err(RuntimeError::Io(format!(
                    "cannot allocate a principal buffer of {} bytes: {e}",
                    spec.max_entries
                )))
            }
            Ok(made) => return Ok(made),
        }
    }
}

impl Session {
    /// The size in bytes of the principal buffer (the ring buffer all CPUs
    /// share), as allocated.
    pub fn principal_size(&self) -> u64 {
        self.ringbuf_size
    }

    /// The verifier's log of each program, by program name, when
    /// [`LoadOptions::bpflog`] asked for them.
    pub fn verifier_logs(&self) -> &[(String, String)] {
        &self.verifier_logs
    }

    /// Create the maps and load every program. Nothing is attached yet.
    pub fn load(
        sys: &SysRef,
        features: &Features,
        compiled: &CompiledProgram,
        opts: &LoadOptions,
    ) -> Result<Session, RuntimeError> {
        let mut maps = Vec::with_capacity(compiled.maps.len());
        let mut ringbuf = None;
        for (i, spec) in compiled.maps.iter().enumerate() {
            if i == compiled.ringbuf_map {
                let (m, rb) = principal_buffer(sys, spec, opts.bufresize_manual)?;
                maps.push(m);
                ringbuf = Some(rb);
            } else {
                maps.push(create_map(sys, spec)?);
            }
        }
        let ringbuf = ringbuf
            .ok_or_else(|| RuntimeError::Io("compiled program has no ring buffer".into()))?;
        let ringbuf_size = maps
            .get(compiled.ringbuf_map)
            .map_or(0, |m| m.spec().max_entries as u64);
        let mut progs = Vec::with_capacity(compiled.programs.len());
        let mut verifier_logs = Vec::new();
        let mut uprobe_sites = Vec::with_capacity(compiled.programs.len());
        let mut markers = Vec::with_capacity(compiled.programs.len());
        for p in &compiled.programs {
            let marker = match p.retoff_map.and_then(|i| maps.get(i)) {
                Some(m) => Some(
                    dtrace_sys::uprobe::load_return_marker(sys, m.as_raw_fd()).map_err(|e| {
                        RuntimeError::Attach(format!("cannot load the return-site marker: {e}"))
                    })?,
                ),
                None => None,
            };
            markers.push(marker);
            let mut sites = Vec::with_capacity(p.uprobes.len());
            for (cookie, (id, layout)) in p.uprobes.iter().enumerate() {
                let of_probe = opts.uprobe_sites.get(id).map(Vec::as_slice).unwrap_or(&[]);
                if of_probe.is_empty() {
                    return Err(RuntimeError::Attach(format!(
                        "probe {id} has no user-space location"
                    )));
                }
                for (site, l) in of_probe {
                    if l == layout {
                        sites.push((site.clone(), cookie as u64));
                    }
                }
            }
            uprobe_sites.push(sites);
            let (fd, log) = load_program(sys, p, &maps, opts.bpflog, opts.bpflogsize)?;
            if opts.bpflog.is_some() {
                verifier_logs.push((p.name.clone(), log));
            }
            progs.push((fd, p.attach.clone()));
        }
        Ok(Session {
            attachments: Vec::new(),
            progs,
            uprobe_sites,
            markers,
            ringbuf,
            ringbuf_size,
            maps,
            sys: sys.clone(),
            features: features.clone(),
            drops_map: compiled.drops_map,
            spec_map: compiled.spec_map,
            globals_map: compiled.globals_map,
            aggs: AggStore::new(
                &compiled.agg_groups,
                &compiled.agg_maps,
                &compiled.agg_fixed,
            ),
            last_drops: BTreeMap::new(),
            verifier_logs,
        })
    }

    fn globals(&self) -> Result<&MapFd, RuntimeError> {
        self.maps
            .get(self.globals_map)
            .ok_or_else(|| RuntimeError::Io("compiled program has no globals map".into()))
    }

    /// Mark tracing active and fire BEGIN in this process's context.
    pub fn begin(&mut self) -> Result<(), RuntimeError> {
        let g = self.globals()?;
        let key = 0u32.to_ne_bytes();
        let mut value = g
            .lookup(&key)
            .map_err(|e| RuntimeError::Io(format!("cannot read globals: {e}")))?
            .unwrap_or_else(|| vec![0; g.spec().value_size as usize]);
        let offset = clock::realtime_offset_ns().unwrap_or(0);
        put_u64(&mut value, G_STATE as usize, STATE_ACTIVE as u64);
        put_u64(&mut value, G_WALLTIME_OFFSET as usize, offset);
        g.update(&key, &value, dtrace_sys::UpdateFlags::Any)
            .map_err(|e| RuntimeError::Io(format!("cannot write globals: {e}")))?;
        self.run(Attach::Begin)
    }

    /// Whether a clause has called `exit()` (the state word left ACTIVE).
    pub fn exiting(&self) -> Result<bool, RuntimeError> {
        let g = self.globals()?;
        let value = g
            .lookup(&0u32.to_ne_bytes())
            .map_err(|e| RuntimeError::Io(format!("cannot read globals: {e}")))?
            .unwrap_or_default();
        let at = G_STATE as usize;
        let state = value
            .get(at..at + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_ne_bytes)
            .unwrap_or(0);
        Ok(state != STATE_ACTIVE as u64)
    }

    /// Fire END (after [`Session::detach`]), in this process's context.
    pub fn end(&mut self) -> Result<(), RuntimeError> {
        self.run(Attach::End)
    }

    fn run(&self, which: Attach) -> Result<(), RuntimeError> {
        for (p, a) in &self.progs {
            if *a == which {
                p.test_run_raw_tp(&[0], None)
                    .map_err(|e| RuntimeError::Io(format!("cannot fire {which:?}: {e}")))?;
            }
        }
        Ok(())
    }

    /// Attach every program to its probes, all enabled at once (as dtrace_go):
    /// while attaching, the state word is held INACTIVE so that no probe acts
    /// before every probe is attached (an early probe's effect, say a raise()
    /// at a syscall entry, must not outrun a later probe's attachment), then
    /// set back to ACTIVE. BEGIN's exit() (DRAINING) is left alone. On error,
    /// whatever was attached is detached again before returning.
    pub fn attach(&mut self) -> Result<(), RuntimeError> {
        let held = self.state()? == STATE_ACTIVE as u64;
        if held {
            self.set_state(STATE_INACTIVE as u64)?;
        }
        for (i, (p, a)) in self.progs.iter().enumerate() {
            let sites = self.uprobe_sites.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let marked = match self.markers.get(i) {
                Some(Some(m)) => attach_return_markers(m, sites).map(Some),
                _ => Ok(None),
            };
            let attached = marked.and_then(|m| {
                self.attachments.extend(m);
                attach(&self.sys, &self.features, p, a, sites)
            });
            match attached {
                Ok(Some(at)) => self.attachments.push(at),
                Ok(None) => {}
                Err(e) => {
                    self.attachments.clear();
                    return Err(RuntimeError::Attach(e.0));
                }
            }
        }
        if held {
            self.set_state(STATE_ACTIVE as u64)?;
        }
        Ok(())
    }

    /// Attach the uprobe programs' probes of process `from` in process `to`
    /// as well (a child of `from` that maps the same objects: `-x
    /// followfork`). The new links stay until the session ends.
    pub fn attach_process(&mut self, from: u32, to: u32) -> Result<(), RuntimeError> {
        for (i, (p, a)) in self.progs.iter().enumerate() {
            if !matches!(a, Attach::Uprobe { .. }) {
                continue;
            }
            let sites: Vec<(UprobeSite, u64)> = self
                .uprobe_sites
                .get(i)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .filter(|(s, _)| s.pid == from)
                .map(|(s, k)| {
                    (
                        UprobeSite {
                            pid: to,
                            ..s.clone()
                        },
                        *k,
                    )
                })
                .collect();
            if sites.is_empty() {
                continue;
            }
            if let Some(Some(m)) = self.markers.get(i) {
                let at = attach_return_markers(m, &sites).map_err(|e| RuntimeError::Attach(e.0))?;
                self.attachments.push(at);
            }
            match attach(&self.sys, &self.features, p, a, &sites) {
                Ok(Some(at)) => self.attachments.push(at),
                Ok(None) => {}
                Err(e) => return Err(RuntimeError::Attach(e.0)),
            }
        }
        Ok(())
    }

    /// Write one entry of map `map` (its index among the compiled maps).
    pub fn update_map(&self, map: usize, key: &[u8], value: &[u8]) -> Result<(), RuntimeError> {
        let m = self
            .maps
            .get(map)
            .ok_or_else(|| RuntimeError::Io(format!("no map {map}")))?;
        m.update(key, value, dtrace_sys::UpdateFlags::Any)
            .map_err(|e| RuntimeError::Io(format!("cannot write {}: {e}", m.spec().name)))
    }

    pub(crate) fn sys(&self) -> &SysRef {
        &self.sys
    }

    pub(crate) fn features(&self) -> &Features {
        &self.features
    }

    /// Uprobe program `i`: its descriptor, attachment and return-site marker.
    pub(crate) fn uprobe_prog(&self, i: usize) -> Option<(&ProgFd, &Attach, Option<&ProgFd>)> {
        let (p, a) = self.progs.get(i)?;
        let marker = self.markers.get(i).and_then(Option::as_ref);
        Some((p, a, marker))
    }

    pub(crate) fn map_fd(&self, i: usize) -> Option<&MapFd> {
        self.maps.get(i)
    }

    /// The pids whose probes the uprobe programs attach to.
    pub fn uprobe_pids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self
            .uprobe_sites
            .iter()
            .flatten()
            .map(|(s, _)| s.pid)
            .filter(|p| *p != 0)
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// The globals' value (state word first).
    fn globals_value(&self) -> Result<Vec<u8>, RuntimeError> {
        let g = self.globals()?;
        Ok(g.lookup(&0u32.to_ne_bytes())
            .map_err(|e| RuntimeError::Io(format!("cannot read globals: {e}")))?
            .unwrap_or_else(|| vec![0; g.spec().value_size as usize]))
    }

    /// The session state word.
    fn state(&self) -> Result<u64, RuntimeError> {
        let v = self.globals_value()?;
        let at = G_STATE as usize;
        Ok(v.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_ne_bytes)
            .unwrap_or(0))
    }

    /// Write the state word (only while no probe can write it: before any is
    /// attached, or while all are held INACTIVE).
    fn set_state(&self, state: u64) -> Result<(), RuntimeError> {
        let mut v = self.globals_value()?;
        put_u64(&mut v, G_STATE as usize, state);
        self.globals()?
            .update(&0u32.to_ne_bytes(), &v, dtrace_sys::UpdateFlags::Any)
            .map_err(|e| RuntimeError::Io(format!("cannot write globals: {e}")))
    }

    /// Detach every probe (BEGIN and END stay loaded).
    pub fn detach(&mut self) {
        self.attachments.clear();
    }

    /// Hand every committed record to `f`, in order.
    pub fn poll(&mut self, f: impl FnMut(&[u8])) -> Result<usize, RuntimeError> {
        self.ringbuf
            .poll(f)
            .map_err(|e| RuntimeError::Io(format!("reading the ring buffer: {e}")))
    }

    /// Wait for a forced wake-up (exit()), a wake fd, or `timeout`.
    pub fn wait(&self, timeout: Duration) -> Result<bool, RuntimeError> {
        self.ringbuf
            .wait(Some(timeout))
            .map_err(|e| RuntimeError::Io(format!("waiting for the ring buffer: {e}")))
    }

    /// Also end [`Session::wait`] when `fd` is readable.
    pub fn add_wake_fd(&self, fd: BorrowedFd<'_>) -> Result<(), RuntimeError> {
        self.ringbuf
            .add_wake_fd(fd)
            .map_err(|e| RuntimeError::Io(format!("cannot watch fd: {e}")))
    }

    /// Per-CPU drops counted since the previous call (only CPUs with new drops).
    pub fn drops(&mut self) -> Result<Vec<Drops>, RuntimeError> {
        let m = self
            .maps
            .get(self.drops_map)
            .ok_or_else(|| RuntimeError::Io("compiled program has no drops map".into()))?;
        let mut per_cpu: BTreeMap<u32, Drops> = BTreeMap::new();
        for slot in 0u32..DROP_SLOTS {
            let buf = m
                .lookup(&slot.to_ne_bytes())
                .map_err(|e| RuntimeError::Io(format!("cannot read drop counters: {e}")))?
                .unwrap_or_default();
            for (cpu, v) in map::percpu_values(&buf, 8).enumerate() {
                let now = v
                    .get(..8)
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_ne_bytes)
                    .unwrap_or(0);
                let cpu = cpu as u32;
                let last = self.last_drops.insert((cpu, slot), now).unwrap_or(0);
                let delta = now.saturating_sub(last);
                if delta > 0 {
                    let d = per_cpu.entry(cpu).or_insert(Drops {
                        cpu,
                        ..Drops::default()
                    });
                    match slot as i32 {
                        DROP_RINGBUF => d.ringbuf = delta,
                        DROP_AGG => d.agg = delta,
                        DROP_DYNVAR => d.dynvar = delta,
                        DROP_SPEC => d.spec = delta,
                        DROP_SPECBUSY => d.spec_busy = delta,
                        DROP_DBLERROR => d.dbl_error = delta,
                        _ => d.spec_unavail = delta,
                    }
                }
            }
        }
        Ok(per_cpu.into_values().collect())
    }

    /// Free speculation `id` after its commit or discard record was consumed, so
    /// speculation() may hand it out again.
    pub fn free_speculation(&self, id: u32) -> Result<(), RuntimeError> {
        let m = self
            .maps
            .get(self.spec_map)
            .ok_or_else(|| RuntimeError::Io("compiled program has no speculations map".into()))?;
        let key = id.to_ne_bytes();
        let err = |e| RuntimeError::Io(format!("cannot free speculation {id}: {e}"));
        // State and byte count to zero; the generation stays (no program writes
        // a draining entry, so this read-modify-write races with nothing).
        let mut value = m
            .lookup(&key)
            .map_err(err)?
            .unwrap_or_else(|| vec![0u8; m.spec().value_size as usize]);
        let keep = SPEC_GEN as usize;
        value.iter_mut().take(keep).for_each(|b| *b = 0);
        m.update(&key, &value, dtrace_sys::UpdateFlags::Any)
            .map_err(err)
    }

    /// Every key of aggregation `agg_id` with its value on every CPU, added to
    /// `out`.
    pub fn agg_snapshot(&self, agg_id: u32, out: &mut AggEntries) -> Result<(), RuntimeError> {
        self.aggs.snapshot(agg_id, &self.maps, out)
    }

    /// `clear()`: zero aggregation `agg_id`'s value on every CPU for every key it
    /// holds now, keeping the keys.
    pub fn agg_clear(&self, agg_id: u32) -> Result<(), RuntimeError> {
        self.aggs.clear(agg_id, &self.maps)
    }

    /// `trunc()`: remove one key of aggregation `agg_id`.
    pub fn agg_remove(&self, agg_id: u32, key: &[u8]) -> Result<(), RuntimeError> {
        self.aggs.remove(agg_id, key, &self.maps)
    }
}

fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    if let Some(dst) = buf.get_mut(at..at + 8) {
        dst.copy_from_slice(&v.to_ne_bytes());
    }
}
