//! User-space probes that join while tracing (libdtrace re-matches its pid
//! descriptions when a process's object list changes, and USDT providers
//! join retained enablings as they appear).
//!
//! - **Compile:** a clause whose description names a process's pid or USDT
//!   providers (`pid$target:libfoo.so::entry`, `myprov$target:::`), or
//!   every process's USDT providers (`myprov*:::`), is compiled into the
//!   uprobe programs even if it matches nothing yet (`-Z`), with spare rows
//!   in their probe tables and in `dt_probes` ([`dtrace_codegen::late`]).
//! - **Watch:** a uprobe on ld.so's rendezvous ([`dtrace_sys::rtld`])
//!   reports each process whose object list became consistent: a process
//!   the descriptions name, stopped there until its new probes are attached
//!   (a guard process resumes it if dtrace dies first), or, for a provider
//!   glob, any process as it starts or loads objects (not stopped: its first
//!   firings may be missed).
//! - **Re-match:** the descriptions are matched again in that process; each
//!   probe new to a program gets a row (probe, clauses, argument layout), its
//!   names, and a uprobe_multi link per object. Then the process resumes.
//! - **Its own thread** ([`LateThread`]) watches and re-matches, with its own
//!   descriptors of the programs and maps ([`UprobeHandles`]), so a consumer
//!   busy elsewhere (waiting for a `system()` command that starts a process
//!   with probes) holds no process up. The new probes' names reach the
//!   consumer through [`Joined`] before any of them can fire.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use dtrace_codegen::desc::ProbeName;
use dtrace_codegen::late::{LateClause, LateUprobes, ProbeNames, UprobeRows};
use dtrace_codegen::CompiledProgram;
use dtrace_consumer::Consumer;
use dtrace_providers::attach::Attachment;
use dtrace_providers::late::{late_kinds, Late};
use dtrace_providers::procmap::UprobeSite;
use dtrace_providers::{Catalog, ProbeDesc};
use dtrace_runtime::UprobeHandles;
use dtrace_sema::{ProbeInfo, ProbeKind};
use dtrace_sys::rtld::{Guard, RtldWatch, Stop};

/// The clauses (by index) that may gain probes, with their descriptions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    descs: Vec<(usize, ProbeDesc, Late)>,
}

impl Plan {
    /// The descriptions of `clauses` (each clause's, in order) that may gain
    /// user-space probes while tracing.
    pub(crate) fn new(catalog: &Catalog, clauses: &[Vec<ProbeDesc>]) -> Plan {
        let mut descs = Vec::new();
        for (ci, ds) in clauses.iter().enumerate() {
            for d in ds {
                if let Some(late) = catalog.late(d) {
                    descs.push((ci, d.clone(), late));
                }
            }
        }
        Plan { descs }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.descs.is_empty()
    }

    /// Whether a description names the USDT providers of every process.
    pub(crate) fn every(&self) -> bool {
        self.descs.iter().any(|(_, _, l)| *l == Late::Every)
    }

    /// What the compiler is told.
    pub(crate) fn uprobes(&self) -> LateUprobes {
        let mut clauses: Vec<LateClause> = Vec::new();
        for (ci, d, _) in &self.descs {
            let (entry, ret) = late_kinds(d);
            match clauses.iter_mut().find(|c| c.clause == *ci) {
                Some(c) => {
                    c.entry |= entry;
                    c.ret |= ret;
                }
                None => clauses.push(LateClause {
                    clause: *ci,
                    entry,
                    ret,
                }),
            }
        }
        LateUprobes {
            clauses,
            entry_specs: vec![dtrace_providers::pid::entry_args()],
            ret_specs: vec![dtrace_providers::pid::return_args()],
        }
    }
}

/// One uprobe program's table and its next free row.
struct Table {
    prog: usize,
    ret: bool,
    rows: UprobeRows,
    next: u32,
    /// Probes (by ID) with rows.
    known: BTreeSet<u32>,
}

/// The run-time half: re-matching on the dynamic linker's reports.
pub(crate) struct LateProbes {
    catalog: Catalog,
    plan: Plan,
    tables: Vec<Table>,
    names: Option<(ProbeNames, u32)>,
    /// Probe ID -> its index in `dt_probes`.
    index: BTreeMap<u32, u32>,
    watch: Option<RtldWatch>,
    /// Probes that could not be enabled are reported once.
    warned: BTreeSet<u32>,
    /// `task_struct`'s `real_parent` and `tgid` offsets: with them, a
    /// provider glob over every process holds dtrace's own descendants.
    progeny: Option<(u32, u32)>,
    /// Objects known to have no USDT probes (a provider glob over every
    /// process looks at each process that starts).
    no_notes: dtrace_providers::usdt::NoNotes,
    /// The programs and maps, once started ([`LateThread::start`]).
    handles: Option<Arc<UprobeHandles>>,
    /// The sites attached here, by program (for `-x followfork`'s children).
    attached: Attached,
    /// The links made here (detached when this goes).
    links: Vec<Attachment>,
    /// The names of the probes that joined, for the consumer.
    joined: Joined,
    /// The session's own processes (`-c`, `-p`): a provider glob over every
    /// process holds these, as it would a process a description names, when
    /// they load objects (see [`LateProbes::add_target`]).
    targets: BTreeSet<u32>,
}

impl LateProbes {
    /// Keep what re-matching needs from the compiled program (before the
    /// session takes it).
    pub(crate) fn new(catalog: Catalog, plan: Plan, compiled: &CompiledProgram) -> LateProbes {
        let mut tables = Vec::new();
        let mut index = BTreeMap::new();
        let all: BTreeSet<u32> = compiled.desc.probes.keys().copied().collect();
        for (i, id) in all.iter().enumerate() {
            index.insert(*id, i as u32);
        }
        for (i, p) in compiled.programs.iter().enumerate() {
            let (Some(rows), dtrace_codegen::Attach::Uprobe { ret }) = (&p.late, &p.attach) else {
                continue;
            };
            tables.push(Table {
                prog: i,
                ret: *ret,
                next: rows.used,
                rows: rows.clone(),
                known: p.uprobes.iter().map(|(id, _)| *id).collect(),
            });
        }
        let names = compiled.probe_names.clone().map(|n| {
            let used = n.used;
            (n, used)
        });
        LateProbes {
            catalog,
            plan,
            tables,
            names,
            index,
            watch: None,
            warned: BTreeSet::new(),
            progeny: None,
            no_notes: Default::default(),
            handles: None,
            attached: Attached::default(),
            links: Vec::new(),
            joined: Joined::default(),
            targets: BTreeSet::new(),
        }
    }

    /// The uprobe programs (with spare rows) and the maps rows and names are
    /// written to, as the compiled program numbers them.
    pub(crate) fn handle_indices(&self) -> (Vec<usize>, Vec<usize>) {
        let progs = self.tables.iter().map(|t| t.prog).collect();
        let mut maps: Vec<usize> = self.tables.iter().map(|t| t.rows.map).collect();
        maps.extend(self.names.as_ref().map(|(n, _)| n.map));
        (progs, maps)
    }

    /// Process `pid` is one of the session's own (created by `-c` or
    /// grabbed by `-p`), told before [`LateProbes::start`]. Under a provider
    /// glob over every process (`myprov*:::`), it is stopped when it loads
    /// objects until their probes are attached, so that none of its own
    /// firings is missed (libdtrace controls the processes it creates or
    /// grabs; others only report, and their first firings may be missed).
    pub(crate) fn add_target(&mut self, pid: u32) {
        self.targets.insert(pid);
    }

    /// The offsets of `real_parent` and `tgid` in `struct task_struct`, so
    /// that a provider glob over every process holds the processes dtrace's
    /// own `system()` commands start, as it does `-c` and `-p` processes.
    pub(crate) fn hold_progeny(&mut self, real_parent: u32, tgid: u32) {
        self.progeny = Some((real_parent, tgid));
    }

    /// Start watching the processes the descriptions name (or every process).
    /// A process without a dynamic linker gains no probes; that is no error.
    pub(crate) fn start(&mut self, sys: &dtrace_sys::SysRef) -> Result<(), String> {
        let mut pids: BTreeSet<u32> = BTreeSet::new();
        let mut every = false;
        for (_, _, late) in &self.plan.descs {
            match late {
                Late::Process(p) => {
                    pids.insert(*p);
                }
                Late::Every => every = true,
            }
        }
        if every {
            pids.extend(&self.targets);
        }
        // A process watched by ID is stopped when it reports, until its new
        // probes are attached (a guard resumes it should dtrace die first).
        // Of the others, while every process is watched, only dtrace's own
        // descendants (its system() commands) are; one that is not ours is
        // not stopped: its first firings may be missed.
        let stop = match (every, self.progeny) {
            (true, Some((real_parent, tgid))) => Stop::Progeny {
                pid: std::process::id(),
                real_parent,
                tgid,
            },
            _ => Stop::Never,
        };
        let mut watch = RtldWatch::new(sys, stop).map_err(|e| e.to_string())?;
        if every {
            if let Some(r) = dtrace_providers::procmap::rendezvous(std::process::id()) {
                watch.watch(&r, 0).map_err(|e| e.to_string())?;
            }
        }
        if !pids.is_empty() || stop != Stop::Never {
            let ids: Vec<u32> = pids.iter().copied().collect();
            watch.set_guard(Guard::start(&ids).map_err(|e| e.to_string())?);
        }
        for pid in pids {
            if let Some(r) = dtrace_providers::procmap::rendezvous(pid) {
                // A process gone already gains nothing.
                let _ = watch.watch(&r, pid);
            }
        }
        self.watch = Some(watch);
        Ok(())
    }

    /// Handle the reports: match again in each reporting process, enable
    /// what is new, and let the process go on. Probes that cannot be enabled
    /// are warned about (once each) on stderr.
    fn poll(&mut self) {
        let Some(pids) = self.watch.as_mut().map(RtldWatch::take) else {
            return;
        };
        for pid in pids {
            for w in self.rematch(pid) {
                eprintln!("dtrace: {w}");
            }
            if let Some(watch) = self.watch.as_mut() {
                watch.resume(pid);
            }
        }
    }

    /// Enable the probes new in process `pid`; warnings.
    fn rematch(&mut self, pid: u32) -> Vec<String> {
        // Probe -> (probe, the clauses it runs).
        let mut new: BTreeMap<u32, (ProbeInfo, Vec<usize>)> = BTreeMap::new();
        for (ci, desc, _) in &self.plan.descs {
            for p in self.catalog.late_matches(desc, pid, &mut self.no_notes) {
                let ProbeKind::Uprobe { ret } = p.kind else {
                    continue;
                };
                let Some(t) = self.tables.iter().find(|t| t.ret == ret) else {
                    continue;
                };
                if t.known.contains(&p.id) || !t.rows.clauses.contains(ci) {
                    continue;
                }
                let e = new.entry(p.id).or_insert_with(|| (p.clone(), Vec::new()));
                if !e.1.contains(ci) {
                    e.1.push(*ci);
                }
            }
        }
        let mut warnings = Vec::new();
        // Per program: the new sites with their cookies.
        let mut attach: BTreeMap<usize, Vec<(UprobeSite, u64)>> = BTreeMap::new();
        let mut names = Vec::new();
        for (id, (p, clauses)) in new {
            match self.add_probe(&p, &clauses, pid) {
                Ok((prog, sites)) => {
                    names.push((
                        id,
                        ProbeName {
                            provider: p.provider.to_string(),
                            module: p.module.to_string(),
                            function: p.function.to_string(),
                            name: p.name.to_string(),
                        },
                    ));
                    attach.entry(prog).or_default().extend(sites);
                }
                Err(why) => {
                    if self.warned.insert(id) {
                        warnings.push(format!(
                            "failed to enable probe {}:{}:{}:{}: {why}",
                            p.provider, p.module, p.function, p.name
                        ));
                    }
                }
            }
        }
        // The consumer knows the names before any of the probes can fire.
        self.joined.add(names);
        let Some(handles) = self.handles.as_ref() else {
            return warnings;
        };
        for (prog, sites) in attach {
            match handles.attach_sites(prog, &sites) {
                Ok(links) => {
                    self.links.extend(links);
                    if let Ok(mut a) = self.attached.lock() {
                        a.extend(sites.into_iter().map(|(s, k)| (prog, s, k)));
                    }
                }
                Err(e) => warnings.push(format!("failed to enable probes in process {pid}: {e}")),
            }
        }
        warnings
    }

    /// Give probe `p` its rows (one per argument layout of its sites in
    /// `pid`) and names; the program and the sites to attach.
    fn add_probe(
        &mut self,
        p: &ProbeInfo,
        clauses: &[usize],
        pid: u32,
    ) -> Result<(usize, Vec<(UprobeSite, u64)>), String> {
        let ProbeKind::Uprobe { ret } = p.kind else {
            return Err("not a user-space probe".into());
        };
        let rt = self.handles.as_ref().ok_or("not started")?;
        let index = name_index(&mut self.index, &mut self.names, p, rt)?;
        let sites: Vec<(UprobeSite, u16)> = self
            .catalog
            .uprobe_sites(p.id)
            .iter()
            .filter(|(s, _)| s.pid == pid)
            .cloned()
            .collect();
        let t = self
            .tables
            .iter_mut()
            .find(|t| t.ret == ret)
            .ok_or("no program serves it")?;
        let n = p.args.len();
        let mut cookies: BTreeMap<u16, u64> = BTreeMap::new();
        let mut out = Vec::with_capacity(sites.len());
        for (site, layout) in sites {
            let cookie = match cookies.get(&layout) {
                Some(c) => *c,
                None => {
                    let fields = if n == 0 {
                        &[][..]
                    } else {
                        p.fields
                            .chunks(n)
                            .nth(layout as usize)
                            .ok_or("argument layout missing")?
                    };
                    if t.next >= t.rows.capacity {
                        return Err("too many probes joined while tracing".into());
                    }
                    let cookie = t.next;
                    let row = match t.rows.spec_of(fields) {
                        Some(spec) => t.rows.row(p.id, index, clauses, spec),
                        None => t
                            .rows
                            .described_row(p.id, index, clauses, fields)
                            .ok_or("its arguments cannot be described")?,
                    };
                    rt.update_map(t.rows.map, &cookie.to_ne_bytes(), &row)
                        .map_err(|e| e.to_string())?;
                    t.next += 1;
                    cookies.insert(layout, u64::from(cookie));
                    u64::from(cookie)
                }
            };
            out.push((site, cookie));
        }
        t.known.insert(p.id);
        Ok((t.prog, out))
    }
}

/// The probe's index in `dt_probes`, its names written there if new.
fn name_index(
    index: &mut BTreeMap<u32, u32>,
    names: &mut Option<(ProbeNames, u32)>,
    p: &ProbeInfo,
    rt: &UprobeHandles,
) -> Result<u32, String> {
    {
        if let Some(i) = index.get(&p.id) {
            return Ok(*i);
        }
        let Some((names, next)) = names.as_mut() else {
            return Ok(0);
        };
        if *next >= names.capacity {
            return Err("too many probes joined while tracing".into());
        }
        let row = names.row([&p.provider, &p.module, &p.function, &p.name]);
        rt.update_map(names.map, &next.to_ne_bytes(), &row)
            .map_err(|e| e.to_string())?;
        let i = *next;
        *next += 1;
        index.insert(p.id, i);
        Ok(i)
    }
}

/// The names of probes that joined while tracing, from the thread that
/// enables them to the consumer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Joined {
    names: Arc<Mutex<Vec<(u32, ProbeName)>>>,
    /// Some names wait (checked before each record, without the lock).
    waiting: Arc<AtomicBool>,
}

impl Joined {
    fn add(&self, names: Vec<(u32, ProbeName)>) {
        if names.is_empty() {
            return;
        }
        if let Ok(mut q) = self.names.lock() {
            q.extend(names);
            self.waiting.store(true, Ordering::Release);
        }
    }

    /// Hand the names that joined since the last call to `consumer`.
    pub(crate) fn install(&self, consumer: &mut Consumer) {
        if !self.waiting.swap(false, Ordering::Acquire) {
            return;
        }
        let names = match self.names.lock() {
            Ok(mut q) => std::mem::take(&mut *q),
            Err(_) => return,
        };
        for (id, name) in names {
            consumer.add_probe(id, name);
        }
    }
}

/// [`LateProbes`] at work on a thread of its own: it waits for the dynamic
/// linker's reports and enables what joins. Stopping it (or dropping it)
/// detaches the links it made and resumes the processes it held.
pub(crate) struct LateThread {
    /// Dropped to stop the thread.
    stop: Option<dtrace_sys::rtld::Stopper>,
    thread: Option<std::thread::JoinHandle<()>>,
    joined: Joined,
    handles: Arc<UprobeHandles>,
    attached: Attached,
    /// Links of followed children (`attach_process`).
    links: Vec<Attachment>,
}

/// The sites of probes that joined: (program, site, cookie).
type Attached = Arc<Mutex<Vec<(usize, UprobeSite, u64)>>>;

impl LateThread {
    /// Start watching (the processes are watched once this returns) and
    /// hand the work to a new thread.
    pub(crate) fn start(
        mut late: LateProbes,
        sys: &dtrace_sys::SysRef,
        handles: UprobeHandles,
    ) -> Result<LateThread, String> {
        late.start(sys)?;
        let handles = Arc::new(handles);
        late.handles = Some(handles.clone());
        let joined = late.joined.clone();
        let attached = late.attached.clone();
        let (stop_w, stop_r) = dtrace_sys::rtld::stopper().map_err(|e| e.to_string())?;
        let thread = std::thread::Builder::new()
            .name("dtrace-late".into())
            .spawn(move || late.run(&stop_r))
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        Ok(LateThread {
            stop: Some(stop_w),
            thread: Some(thread),
            joined,
            handles,
            attached,
            links: Vec::new(),
        })
    }

    /// Attach the probes that joined in process `from` in process `to` as
    /// well (its child, `-x followfork`).
    pub(crate) fn attach_process(&mut self, from: u32, to: u32) -> Result<(), String> {
        let mut by_prog: BTreeMap<usize, Vec<(UprobeSite, u64)>> = BTreeMap::new();
        if let Ok(a) = self.attached.lock() {
            for (prog, s, k) in a.iter().filter(|(_, s, _)| s.pid == from) {
                let site = UprobeSite {
                    pid: to,
                    ..s.clone()
                };
                by_prog.entry(*prog).or_default().push((site, *k));
            }
        }
        for (prog, sites) in by_prog {
            let links = self
                .handles
                .attach_sites(prog, &sites)
                .map_err(|e| e.to_string())?;
            self.links.extend(links);
        }
        Ok(())
    }

    pub(crate) fn joined(&self) -> &Joined {
        &self.joined
    }

    /// Stop the thread: its links are detached and the processes it held
    /// resumed when this returns.
    pub(crate) fn stop(&mut self) {
        self.stop = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.links.clear();
    }
}

impl Drop for LateThread {
    fn drop(&mut self) {
        self.stop();
    }
}

impl LateProbes {
    /// The thread's loop: handle reports until `stop`'s other end goes.
    fn run(mut self, stop: &dtrace_sys::rtld::Stopped) {
        while self.watch.as_ref().is_some_and(|w| w.wait(stop)) {
            self.poll();
        }
    }
}
