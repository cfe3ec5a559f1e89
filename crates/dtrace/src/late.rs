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

use std::collections::{BTreeMap, BTreeSet};

use dtrace_codegen::late::{LateClause, LateUprobes, ProbeNames, UprobeRows};
use dtrace_codegen::CompiledProgram;
use dtrace_consumer::Consumer;
use dtrace_providers::late::{late_kinds, Late};
use dtrace_providers::procmap::UprobeSite;
use dtrace_providers::{Catalog, ProbeDesc};
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
    /// Resumes the watched processes should dtrace die holding them.
    guard: Option<Guard>,
    /// Objects known to have no USDT probes (a provider glob over every
    /// process looks at each process that starts).
    no_notes: dtrace_providers::usdt::NoNotes,
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
            guard: None,
            no_notes: Default::default(),
            targets: BTreeSet::new(),
        }
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
        // One merely starting or loading objects while every process is
        // watched is not (it is not ours): its first firings may be missed.
        let stop = Stop::Never;
        let mut watch = RtldWatch::new(sys, stop).map_err(|e| e.to_string())?;
        if every {
            if let Some(r) = dtrace_providers::procmap::rendezvous(std::process::id()) {
                watch.watch(&r, 0).map_err(|e| e.to_string())?;
            }
        }
        if !pids.is_empty() {
            let ids: Vec<u32> = pids.iter().copied().collect();
            self.guard = Some(Guard::start(&ids).map_err(|e| e.to_string())?);
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

    /// The descriptor that becomes readable on a report.
    pub(crate) fn fd(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd;
        self.watch.as_ref().map(|w| w.fd().as_raw_fd())
    }

    /// Handle the reports: match again in each reporting process, enable
    /// what is new, and let the process go on. Probes that cannot be enabled
    /// are warned about (once each) on stderr.
    pub(crate) fn poll(&mut self, rt: &mut dtrace_runtime::Session, consumer: &mut Consumer) {
        let Some(pids) = self.watch.as_mut().map(RtldWatch::take) else {
            return;
        };
        for pid in pids {
            for w in self.rematch(pid, rt, consumer) {
                eprintln!("dtrace: {w}");
            }
            if let Some(watch) = self.watch.as_mut() {
                watch.resume(pid);
            }
        }
    }

    /// Enable the probes new in process `pid`; warnings.
    fn rematch(
        &mut self,
        pid: u32,
        rt: &mut dtrace_runtime::Session,
        consumer: &mut Consumer,
    ) -> Vec<String> {
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
        for (id, (p, clauses)) in new {
            match self.add_probe(&p, &clauses, pid, rt) {
                Ok((prog, sites)) => {
                    consumer.add_probe(
                        id,
                        dtrace_codegen::desc::ProbeName {
                            provider: p.provider.to_string(),
                            module: p.module.to_string(),
                            function: p.function.to_string(),
                            name: p.name.to_string(),
                        },
                    );
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
        for (prog, sites) in attach {
            if let Err(e) = rt.attach_sites(prog, &sites) {
                warnings.push(format!("failed to enable probes in process {pid}: {e}"));
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
        rt: &mut dtrace_runtime::Session,
    ) -> Result<(usize, Vec<(UprobeSite, u64)>), String> {
        let ProbeKind::Uprobe { ret } = p.kind else {
            return Err("not a user-space probe".into());
        };
        let index = self.name_index(p, rt)?;
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

    /// The probe's index in `dt_probes`, its names written there if new.
    fn name_index(
        &mut self,
        p: &ProbeInfo,
        rt: &mut dtrace_runtime::Session,
    ) -> Result<u32, String> {
        if let Some(i) = self.index.get(&p.id) {
            return Ok(*i);
        }
        let Some((names, next)) = self.names.as_mut() else {
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
        self.index.insert(p.id, i);
        Ok(i)
    }
}
