//! Consuming ring-buffer records: decoding each record through the program's
//! descriptions into [`Event`]s (probe firing, action values, printf text,
//! printa rows, faults), applying what the consumer itself owns (speculations,
//! `setopt()`, `trunc()`/`clear()`/`normalize()`), and the aggregations and
//! drops reported as tracing goes on and ends. How events look is an
//! [`Output`]'s business (`text.rs`, `json.rs`).

use crate::aggregate::{collect_rows, collect_rows_into, AggSource, Row, Rows, Snapshot};
use crate::event::{
    AggReport, Context, DropEvent, DropKind, Event, FaultEvent, Output, ProbeEvent, SetoptError,
};
use crate::options::ConsumerOptions;
use crate::printf::{Apply, Env, Format};
use crate::speculation::{self, Speculations};
use crate::symbols::KernelSymbols;
use crate::value::{decode, DecodeError, Value};
use dtrace_desc::{
    ActionKind, AggDesc, AggOp, FaultRecord, ProbeName, ProgramDesc, RecordHeader, EPID_FAULT,
    FAULT_RECORD_SIZE, HEADER_SIZE,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// What the caller should do after a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Continue,
    /// exit() was called with this status.
    Exit(i32),
}

/// A record that could not be consumed.
#[derive(Debug)]
pub enum ConsumeError {
    /// The input is shorter than the header or description requires.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// The bytes it needs.
        need: usize,
        /// The bytes there are.
        have: usize,
    },
    /// A field could not be decoded.
    Decode(DecodeError),
    /// No description for this EPID.
    UnknownEpid(u32),
    /// No name for this probe ID.
    UnknownProbe(u32),
    /// printa of an aggregation with no description.
    UnknownAgg(u32),
    /// A printf/printa format in the description does not parse.
    BadFormat {
        /// The enabled probe whose format it is.
        epid: u32,
        /// The parser's message.
        message: String,
    },
    /// Writing the output failed.
    Io(std::io::Error),
}

impl fmt::Display for ConsumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsumeError::Truncated { what, need, have } => {
                write!(f, "truncated {what}: need {need} bytes, have {have}")
            }
            ConsumeError::Decode(e) => write!(f, "malformed record: {e}"),
            ConsumeError::UnknownEpid(e) => write!(f, "unknown enabled probe ID {e}"),
            ConsumeError::UnknownProbe(p) => write!(f, "unknown probe ID {p}"),
            ConsumeError::UnknownAgg(a) => write!(f, "unknown aggregation ID {a}"),
            ConsumeError::BadFormat { epid, message } => {
                write!(f, "bad format for enabled probe ID {epid}: {message}")
            }
            ConsumeError::Io(e) => write!(f, "write error: {e}"),
        }
    }
}

impl std::error::Error for ConsumeError {}

impl From<std::io::Error> for ConsumeError {
    fn from(e: std::io::Error) -> ConsumeError {
        ConsumeError::Io(e)
    }
}

/// Decodes records through a [`ProgramDesc`] into events for an [`Output`].
pub struct Consumer {
    desc: ProgramDesc,
    opts: ConsumerOptions,
    /// Parsed printf/printa formats by (EPID, action index), parsed once.
    formats: BTreeMap<(u32, usize), Result<Format, String>>,
    /// Aggregations already printed by printa (dtrace does not print them again at exit).
    printed: BTreeSet<u32>,
    /// Faults seen per CPU since the last [`Consumer::take_errors`].
    errors: BTreeMap<u32, u64>,
    /// normalize() factors by aggregation id (absent: 1).
    normals: BTreeMap<u32, u64>,
    /// Speculative records held until their commit or discard.
    specs: Speculations,
    /// Symbols, stack indent and time zone for stacks, `%a` and `%Y`.
    env: Env,
    /// The probes' names, shared by every event of their firings.
    probe_names: BTreeMap<u32, Arc<ProbeName>>,
    /// Drops reported so far, by CPU (None: all CPUs) and kind.
    drop_totals: BTreeMap<(Option<u32>, DropKind), u64>,
    /// How `setopt()` sets an option (None: every name is unknown).
    setopt: Option<SetOption>,
    /// Processes whose address spaces are followed (see `watch_process`).
    watched: Vec<u32>,
}

impl Consumer {
    /// A consumer of the records `desc` describes.
    pub fn new(desc: ProgramDesc, opts: ConsumerOptions) -> Consumer {
        let mut formats = BTreeMap::new();
        for (epid, e) in &desc.epids {
            for (i, a) in e.actions.iter().enumerate() {
                let f = match &a.kind {
                    ActionKind::Printf { format }
                    | ActionKind::System { format }
                    | ActionKind::Freopen { format } => Some(format),
                    ActionKind::Printa {
                        format: Some(format),
                        ..
                    } => Some(format),
                    _ => None,
                };
                if let Some(f) = f {
                    formats.insert((*epid, i), Format::parse(f).map_err(|e| e.message));
                }
            }
        }
        let probe_names = desc
            .probes
            .iter()
            .map(|(id, p)| (*id, Arc::new(p.clone())))
            .collect();
        let env = Env {
            syms: KernelSymbols::default(),
            stackindent: opts.stackindent.unwrap_or(DEFAULT_STACKINDENT) as usize,
            tz: crate::walltime::TimeZone::local(),
            usyms: dtrace_usym::UserSymbols::new(),
            noresolve: opts.noresolve,
        };
        Consumer {
            desc,
            opts,
            formats,
            printed: BTreeSet::new(),
            errors: BTreeMap::new(),
            normals: BTreeMap::new(),
            specs: Speculations::default(),
            env,
            probe_names,
            drop_totals: BTreeMap::new(),
            setopt: None,
            watched: Vec::new(),
        }
    }

    /// How `setopt()` sets options while tracing.
    pub fn set_option_handler(&mut self, f: SetOption) {
        self.setopt = Some(f);
    }

    /// Follow the address space of process `pid` (a `-c`/`-p` target): it is
    /// read again at each [`refresh_processes`](Self::refresh_processes)
    /// while it lives, so its addresses resolve after it exits.
    pub fn watch_process(&mut self, pid: u32) {
        if !self.watched.contains(&pid) {
            self.watched.push(pid);
        }
        self.env.usyms.refresh(pid);
    }

    /// Re-read the address spaces of the watched processes that changed.
    pub fn refresh_processes(&mut self) {
        for &pid in &self.watched {
            self.env.usyms.refresh(pid);
        }
    }

    /// Kernel symbols for stacks and `%a` (without them addresses print in hex).
    pub fn set_symbols(&mut self, syms: KernelSymbols) {
        self.env.syms = syms;
    }

    /// The symbols, stack indent and time zone outputs print with (also
    /// the user address spaces).
    pub fn env(&self) -> &Env {
        &self.env
    }

    /// The kernel symbols stacks and `sym()` resolve against.
    pub fn symbols(&self) -> &KernelSymbols {
        &self.env.syms
    }

    /// The time zone `%Y` prints in (the environment's by default).
    pub fn set_time_zone(&mut self, tz: crate::walltime::TimeZone) {
        self.env.tz = tz;
    }

    /// The options in force (`setopt()` changes the dynamic ones).
    pub fn options(&self) -> &ConsumerOptions {
        &self.opts
    }

    /// Name a probe that joined while tracing (a pid or USDT probe of an
    /// object mapped, or a process started, after tracing began).
    pub fn add_probe(&mut self, id: u32, name: dtrace_desc::ProbeName) {
        self.probe_names.insert(id, Arc::new(name.clone()));
        self.desc.probes.insert(id, name);
    }

    /// The program's descriptions.
    pub fn desc(&self) -> &ProgramDesc {
        &self.desc
    }

    /// Consumes one ring-buffer record: decodes it and hands its events to
    /// `output`. Nothing reaches `output` for a record that cannot be decoded. A
    /// speculative record is held back until its speculation's commit (then
    /// its events follow the commit's) or discard (dropped).
    pub fn record(
        &mut self,
        bytes: &[u8],
        output: &mut dyn Output,
        aggs: &mut dyn AggSource,
    ) -> Result<Control, ConsumeError> {
        let header = RecordHeader::parse(bytes);
        let epd = header.and_then(|h| Some((h, self.desc.epids.get(&h.epid)?)));
        let Some((header, epd)) = epd else {
            return self.emit_record(bytes, output, aggs);
        };
        if let Some(spec) = speculation::speculation_of(epd, &header, bytes) {
            self.specs.hold(spec, bytes.to_vec());
            return Ok(Control::Continue);
        }
        let drained = speculation::drained_by(epd, &header, bytes);
        let control = self.emit_record(bytes, output, aggs)?;
        for d in drained {
            let held = self.specs.drain(d.spec);
            if d.commit {
                for r in &held {
                    self.emit_record(r, output, aggs)?;
                }
            }
        }
        Ok(control)
    }

    /// Speculation IDs whose commit or discard was consumed since the last call:
    /// the caller marks them free for `speculation()` again.
    pub fn take_freed_speculations(&mut self) -> Vec<u32> {
        self.specs.take_freed()
    }

    /// Hands one event to `output` with the consumer's context.
    fn send(&self, output: &mut dyn Output, ev: &Event) -> Result<(), ConsumeError> {
        let cx = Context {
            desc: &self.desc,
            opts: &self.opts,
            env: &self.env,
        };
        output.event(&cx, ev)
    }

    /// Decodes one record (a speculative one at its commit) into events.
    fn emit_record(
        &mut self,
        bytes: &[u8],
        output: &mut dyn Output,
        aggs: &mut dyn AggSource,
    ) -> Result<Control, ConsumeError> {
        let header = RecordHeader::parse(bytes).ok_or(ConsumeError::Truncated {
            what: "record header",
            need: HEADER_SIZE as usize,
            have: bytes.len(),
        })?;
        if header.epid == EPID_FAULT {
            let fault = FaultRecord::parse(bytes).ok_or(ConsumeError::Truncated {
                what: "fault record",
                need: FAULT_RECORD_SIZE as usize,
                have: bytes.len(),
            })?;
            let ev = Event::Fault(FaultEvent {
                cpu: header.cpu,
                probe_id: header.probe_id,
                probe: self
                    .desc
                    .probes
                    .get(&header.probe_id)
                    .cloned()
                    .unwrap_or_default(),
                epid: fault.epid,
                action: fault.action,
                kind: fault.kind,
                addr: fault.addr,
                pc: fault.pc,
            });
            self.send(output, &ev)?;
            let n = self.errors.entry(header.cpu).or_insert(0);
            *n = n.saturating_add(1);
            return Ok(Control::Continue);
        }
        let epd = self
            .desc
            .epids
            .get(&header.epid)
            .ok_or(ConsumeError::UnknownEpid(header.epid))?;
        // Decode everything first so a malformed record produces no events.
        let mut values: Vec<Vec<Value>> = Vec::with_capacity(epd.actions.len());
        for a in &epd.actions {
            let v = a
                .fields
                .iter()
                .map(|f| decode(f, bytes))
                .collect::<Result<Vec<_>, _>>()
                .map_err(ConsumeError::Decode)?;
            values.push(v);
        }
        let probe = self
            .probe_names
            .get(&header.probe_id)
            .cloned()
            .ok_or(ConsumeError::UnknownProbe(header.probe_id))?;
        let epid = header.epid;
        let clause = epd.clause;
        // A record of commit()/discard() alone prints no probe line.
        let commit_discard_only = speculation::only_commit_discard(epd, header.flags);
        // The actions' events, built before any is sent (printa reads the
        // aggregations as this record reaches it).
        let mut events = Vec::with_capacity(epd.actions.len() + 2);
        events.push(Event::Probe(ProbeEvent {
            epid,
            clause,
            cpu: header.cpu,
            id: header.probe_id,
            probe: probe.clone(),
            commit_discard_only,
        }));
        let mut control = Control::Continue;
        let mut printed = Vec::new();
        for (i, (a, vals)) in epd.actions.iter().zip(values).enumerate() {
            let kind = &a.kind;
            if !action_ran(header.flags, i) {
                continue;
            }
            match kind {
                ActionKind::Trace => events.extend(
                    vals.into_iter()
                        .map(|v| Event::Trace(crate::ustack::settle(v, &self.env))),
                ),
                ActionKind::Printf { format } => {
                    let vals: Vec<Value> = vals
                        .into_iter()
                        .map(|v| crate::ustack::settle(v, &self.env))
                        .collect();
                    let mut text = Vec::with_capacity(format.len() + 32);
                    lookup_format(&self.formats, epid, i)?.apply_env(
                        &vals,
                        &[],
                        &self.env,
                        &mut text,
                    );
                    events.push(Event::Printf { text, args: vals });
                }
                ActionKind::Tracemem => {
                    if let Some(Value::Bytes(b)) = vals.first() {
                        let n = match vals.get(1) {
                            Some(d) => (d.as_i64().max(0) as usize).min(b.len()),
                            None => b.len(),
                        };
                        events.push(Event::Tracemem(b[..n].to_vec()));
                    }
                }
                ActionKind::System { .. } | ActionKind::Freopen { .. } => {
                    let mut text = Vec::new();
                    lookup_format(&self.formats, epid, i)?.apply_env(
                        &vals,
                        &[],
                        &self.env,
                        &mut text,
                    );
                    events.push(if matches!(kind, ActionKind::System { .. }) {
                        Event::System(text)
                    } else {
                        Event::Freopen(text)
                    });
                }
                ActionKind::Setopt => {
                    // The option changes what later events print, so what
                    // came before is sent first.
                    for ev in events.drain(..) {
                        self.send(output, &ev)?;
                    }
                    let name = vals.first().map(value_text).unwrap_or_default();
                    let value = vals.get(1).map(value_text);
                    let r = match &mut self.setopt {
                        Some(f) => f(&name, value.as_deref(), &mut self.opts),
                        None => Err("Invalid option name".to_string()),
                    };
                    self.env.stackindent =
                        self.opts.stackindent.unwrap_or(DEFAULT_STACKINDENT) as usize;
                    if let Err(why) = r {
                        events.push(Event::Setopt(SetoptError {
                            probe_id: header.probe_id,
                            probe: (*probe).clone(),
                            clause,
                            name,
                            value,
                            why,
                        }));
                    }
                }
                ActionKind::Symbol { module } => {
                    let addr = vals.first().map(|v| v.as_u64()).unwrap_or(0);
                    let text = if *module {
                        self.env.syms.module(addr)
                    } else {
                        self.env.syms.function(addr)
                    };
                    events.push(Event::Symbol {
                        addr,
                        module: *module,
                        text,
                    });
                }
                ActionKind::Ftruncate => events.push(Event::Ftruncate),
                ActionKind::Exit => {
                    let status = vals.first().map(|v| v.as_i64() as i32).unwrap_or(0);
                    control = Control::Exit(status);
                    events.push(Event::Exit(status));
                }
                ActionKind::Printa { format, aggs: ids } => {
                    let mut report = self.report(ids, aggs)?;
                    if format.is_some() {
                        report.format = Some(lookup_format(&self.formats, epid, i)?.clone());
                    }
                    events.push(Event::Printa(report));
                    printed.extend(ids.iter().copied());
                }
                ActionKind::AggControl { op, agg } => {
                    let arg = vals.first().map(Value::as_i64);
                    agg_control(&self.desc, &mut self.normals, *op, *agg, arg, aggs)?;
                }
                ActionKind::Print { ty } => {
                    let mut addr = None;
                    for v in vals {
                        match v {
                            Value::Bytes(mut b) => {
                                if let Some(n) = self.opts.printsize {
                                    b.truncate(n as usize);
                                }
                                events.push(Event::Print {
                                    ty: ty.clone(),
                                    bytes: b,
                                    addr,
                                });
                            }
                            other => addr = Some(other.as_u64()),
                        }
                    }
                }
                // Handled by `record` (speculation.rs).
                ActionKind::Speculate | ActionKind::CommitDiscard { .. } => {}
            }
        }
        events.push(Event::ProbeEnd);
        for ev in &events {
            self.send(output, ev)?;
        }
        // Only a record that was fully consumed changes the consumer's state.
        self.printed.extend(printed);
        Ok(control)
    }

    /// The rows of aggregations `ids` now, joined by key and sorted as the
    /// `aggsort*` options say, with their `normalize()` factors.
    pub fn report(&self, ids: &[u32], aggs: &mut dyn AggSource) -> Result<AggReport, ConsumeError> {
        let descs = agg_descs(&self.desc, ids)?;
        let rows = collect_rows(&descs, aggs, &self.opts, &self.env)?;
        Ok(AggReport {
            aggs: descs.into_iter().cloned().collect(),
            normals: normals_of(&self.normals, ids),
            rows,
            format: None,
        })
    }

    /// Every aggregation now (libdtrace's `dtrace_aggregate_snap`), in ID
    /// order, each with its rows sorted as the `aggsort*` options say. Nothing
    /// is printed and nothing is marked printed.
    pub fn snapshot(&self, aggs: &mut dyn AggSource) -> Result<Vec<AggReport>, ConsumeError> {
        let mut snap = Snapshot::new();
        self.snapshot_into(aggs, &mut snap)?;
        Ok(snap.into_reports())
    }

    /// [`Consumer::snapshot`] into `snap`, reusing the memory of the snapshot
    /// it holds.
    pub fn snapshot_into(
        &self,
        aggs: &mut dyn AggSource,
        snap: &mut Snapshot,
    ) -> Result<(), ConsumeError> {
        let n = self.desc.aggs.len();
        snap.reports.truncate(n);
        for (i, (id, desc)) in self.desc.aggs.iter().enumerate() {
            if snap.reports.len() == i {
                snap.reports.push(AggReport {
                    aggs: Vec::new(),
                    normals: Vec::new(),
                    rows: Rows::default(),
                    format: None,
                });
            }
            let Some(report) = snap.reports.get_mut(i) else {
                continue;
            };
            report.aggs.clear();
            report.aggs.push(desc.clone());
            report.normals = normals_of(&self.normals, &[*id]);
            report.format = None;
            let rows = &mut report.rows;
            collect_rows_into(&[desc], aggs, &self.opts, &self.env, &mut snap.bufs, rows)?;
        }
        Ok(())
    }

    /// Reports drops: `counts` are new drops (since the last call) by CPU and
    /// kind. The kinds dtrace(1) reports per CPU come first, CPU by CPU, each
    /// CPU's in kind order; the others follow summed over all CPUs.
    pub fn drops(
        &mut self,
        counts: &[(u32, DropKind, u64)],
        output: &mut dyn Output,
    ) -> Result<(), ConsumeError> {
        let mut per_cpu: BTreeMap<(u32, DropKind), u64> = BTreeMap::new();
        let mut global: BTreeMap<DropKind, u64> = BTreeMap::new();
        for &(cpu, kind, n) in counts {
            if n == 0 {
                continue;
            }
            if kind.per_cpu() {
                let e = per_cpu.entry((cpu, kind)).or_insert(0);
                *e = e.saturating_add(n);
            } else {
                let e = global.entry(kind).or_insert(0);
                *e = e.saturating_add(n);
            }
        }
        let all = per_cpu
            .into_iter()
            .map(|((cpu, kind), n)| (Some(cpu), kind, n))
            .chain(global.into_iter().map(|(kind, n)| (None, kind, n)));
        for (cpu, kind, count) in all {
            let t = self.drop_totals.entry((cpu, kind)).or_insert(0);
            *t = t.saturating_add(count);
            let ev = Event::Drop(DropEvent {
                cpu,
                kind,
                count,
                total: *t,
            });
            self.send(output, &ev)?;
        }
        Ok(())
    }

    /// The faults counted per CPU since the last call (CPUs with none are left
    /// out), in CPU order. dtrace(1) prints each fault's message only (Oracle
    /// DTrace 2.x has no per-CPU count line); library users may want the tally.
    pub fn take_errors(&mut self) -> Vec<(u32, u64)> {
        std::mem::take(&mut self.errors).into_iter().collect()
    }

    /// The aggregations dtrace(1) prints when tracing stops, as
    /// [`Event::Aggregation`]s: every aggregation not already printed by
    /// printa, in ID order; an aggregation with no data prints nothing.
    ///
    /// The single blank line dtrace(1) shows before them is the newline the CLI
    /// prints when tracing ends, not ours: after `^C` the Solaris Dynamic Tracing
    /// Guide ("syscall Provider" example, `@syscalls[probefunc] = count()`) shows
    /// exactly one blank line before the first row, and libdtrace's walkers
    /// (Oracle Solaris DTrace Guide, `dtrace_aggregate_walk_keyvarsorted()`
    /// example) print rows of several aggregations with nothing between them.
    pub fn finish(
        &mut self,
        output: &mut dyn Output,
        aggs: &mut dyn AggSource,
    ) -> Result<(), ConsumeError> {
        let mut ids: Vec<u32> = self.desc.aggs.keys().copied().collect();
        // dtrace sorts all the aggregations' rows together, the aggregation
        // first, so aggsortrev also reverses the order of the aggregations.
        if self.opts.aggsortrev {
            ids.reverse();
        }
        for id in ids {
            if self.printed.contains(&id) {
                continue;
            }
            let report = self.report(&[id], aggs)?;
            self.send(output, &Event::Aggregation(report))?;
        }
        output.flush()
    }
}

fn normals_of(normals: &BTreeMap<u32, u64>, ids: &[u32]) -> Vec<u64> {
    ids.iter()
        .map(|id| normals.get(id).copied().unwrap_or(1))
        .collect()
}

/// Applies trunc()/clear()/normalize()/denormalize() where the record stream
/// reached it, as libdtrace does: later printa()s (and the output at exit) see
/// its effect, earlier ones did not.
fn agg_control(
    desc: &ProgramDesc,
    normals: &mut BTreeMap<u32, u64>,
    op: AggOp,
    agg: u32,
    arg: Option<i64>,
    aggs: &mut dyn AggSource,
) -> Result<(), ConsumeError> {
    match op {
        AggOp::Normalize => {
            // normalize() by 0 would divide by zero; dtrace ignores it.
            if let Some(n) = arg.filter(|n| *n > 0) {
                normals.insert(agg, n as u64);
            }
        }
        AggOp::Denormalize => {
            normals.remove(&agg);
        }
        AggOp::Clear => aggs.clear(agg),
        AggOp::Trunc => {
            let descs = agg_descs(desc, &[agg])?;
            // Ascending by value (ties by key); keep the largest n, or the
            // smallest |n| when n is negative, and remove the rest.
            let rows = collect_rows(&descs, aggs, &ConsumerOptions::default(), &Env::default())?;
            let n = arg.unwrap_or(0);
            let keep = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
            let len = rows.len();
            let removed: Vec<Row<'_>> = if n >= 0 {
                rows.iter().take(len.saturating_sub(keep)).collect()
            } else {
                rows.iter().skip(keep).collect()
            };
            for r in removed {
                aggs.remove(agg, r.key);
            }
        }
    }
    Ok(())
}

/// Whether action `i` of a record ran: with the header's valid bit set, bit `i`
/// (for `i < 31`) says so; records without it ran every action.
pub(crate) fn action_ran(flags: u32, i: usize) -> bool {
    if flags & dtrace_desc::RECORD_FLAGS_VALID == 0 || i >= 31 {
        return true;
    }
    flags & (1 << i) != 0
}

fn lookup_format(
    formats: &BTreeMap<(u32, usize), Result<Format, String>>,
    epid: u32,
    action: usize,
) -> Result<&Format, ConsumeError> {
    match formats.get(&(epid, action)) {
        Some(Ok(f)) => Ok(f),
        Some(Err(m)) => Err(ConsumeError::BadFormat {
            epid,
            message: m.clone(),
        }),
        None => Err(ConsumeError::BadFormat {
            epid,
            message: format!("action #{} has no format", action + 1),
        }),
    }
}

fn agg_descs<'a>(desc: &'a ProgramDesc, ids: &[u32]) -> Result<Vec<&'a AggDesc>, ConsumeError> {
    ids.iter()
        .map(|id| desc.aggs.get(id).ok_or(ConsumeError::UnknownAgg(*id)))
        .collect()
}

/// dtrace(1)'s default `stackindent`.
pub const DEFAULT_STACKINDENT: u32 = 14;

/// A `setopt()` argument as text.
fn value_text(v: &Value) -> String {
    match v {
        Value::Str(s) | Value::Bytes(s) => String::from_utf8_lossy(s).into_owned(),
        other => other.decimal(),
    }
}

/// Sets an option while tracing (`setopt()`): the option table is the
/// facade's, so the facade supplies this. It updates `opts` and returns why an
/// option cannot be set, in dtrace's words ("Invalid option name", ...).
pub type SetOption = Box<dyn FnMut(&str, Option<&str>, &mut ConsumerOptions) -> Result<(), String>>;
