//! Consuming ring-buffer records: the default probe line, trace/printf/printa/exit
//! output, fault messages, and the aggregations printed at exit.
//!
//! Formats (widths counted from documented dtrace(1) output):
//! - heading `CPU     ID                    FUNCTION:NAME`: `CPU` right-aligned in 3,
//!   `ID` in 6, `FUNCTION:NAME` in 32, single spaces between (43 columns; Oracle
//!   Linux DTrace tutorial `dtrace -n dtrace:::BEGIN` example);
//! - probe line: cpu in 3, probe id in 6, `function:name` right-aligned in 32, then
//!   one space (`  0      1                           :BEGIN   Hello World...`);
//!   action output follows on the same line and a newline ends the record;
//! - trace() of an integer: a space then the value right-aligned in 19 (8-byte),
//!   10 (4-byte), 5 (2-byte) or 3 (1-byte) columns, signed or not by its D type
//!   (Oracle DTrace 2.x: `trace((int32_t)-1)` prints `          -1` after the
//!   probe line's space, `trace((uint32_t)-1)` `  4294967295`);
//! - trace() of a string: two spaces then the string left-aligned in 33 columns
//!   (`func:probe2   hello, dtrace                    `);
//! - with quiet, only the traced data itself: `%d`/`%s`, no padding, no newline.

use crate::aggregate::{collect_rows, print_rows, print_rows_formatted, AggSource, Row};
use crate::options::ConsumerOptions;
use crate::printf::{Apply, Env, Format};
use crate::speculation::{self, Speculations};
use crate::symbols::{print_stack, KernelSymbols};
use crate::value::{decode, DecodeError, Value};
use dtrace_codegen::desc::{
    ActionKind, AggDesc, AggOp, FaultKind, FaultRecord, ProbeName, ProgramDesc, RecordHeader,
    EPID_FAULT, FAULT_RECORD_SIZE, HEADER_SIZE,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::Write;

/// What the caller should do after a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// exit() was called with this status.
    Exit(i32),
}

/// A record that could not be consumed.
#[derive(Debug)]
pub enum ConsumeError {
    /// The input is shorter than the header or description requires.
    Truncated {
        what: &'static str,
        need: usize,
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
    BadFormat { epid: u32, message: String },
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

/// Decodes records through a [`ProgramDesc`] and prints them as dtrace(1) does.
pub struct Consumer {
    desc: ProgramDesc,
    opts: ConsumerOptions,
    heading_printed: bool,
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
    /// Where output goes after `freopen()` (None: the caller's `out`).
    redirect: Option<(String, std::fs::File)>,
    /// How `setopt()` sets an option (None: every name is unknown).
    setopt: Option<SetOption>,
    /// Processes whose address spaces are followed (see `watch_process`).
    watched: Vec<u32>,
}

impl Consumer {
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
            heading_printed: false,
            formats,
            printed: BTreeSet::new(),
            errors: BTreeMap::new(),
            normals: BTreeMap::new(),
            specs: Speculations::default(),
            env,
            redirect: None,
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

    /// The time zone `%Y` prints in (the environment's by default).
    pub fn set_time_zone(&mut self, tz: crate::walltime::TimeZone) {
        self.env.tz = tz;
    }

    pub fn options(&self) -> &ConsumerOptions {
        &self.opts
    }

    pub fn desc(&self) -> &ProgramDesc {
        &self.desc
    }

    /// Consumes one ring-buffer record. Normal output goes to `out`; fault messages
    /// (`dtrace: error on enabled probe ID ...`) go to `errors`. Nothing is written
    /// for a record that cannot be decoded. A speculative record is held back
    /// until its speculation's commit (then printed) or discard (dropped).
    pub fn record(
        &mut self,
        bytes: &[u8],
        out: &mut dyn Write,
        errors: &mut dyn Write,
        aggs: &mut dyn AggSource,
    ) -> Result<Control, ConsumeError> {
        let header = RecordHeader::parse(bytes);
        let epd = header.and_then(|h| Some((h, self.desc.epids.get(&h.epid)?)));
        let Some((header, epd)) = epd else {
            return self.print_record(bytes, out, errors, aggs);
        };
        if let Some(spec) = speculation::speculation_of(epd, &header, bytes) {
            self.specs.hold(spec, bytes.to_vec());
            return Ok(Control::Continue);
        }
        let drained = speculation::drained_by(epd, &header, bytes);
        let control = self.print_record(bytes, out, errors, aggs)?;
        for d in drained {
            let held = self.specs.drain(d.spec);
            if d.commit {
                for r in &held {
                    self.print_record(r, out, errors, aggs)?;
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

    /// Prints one record (a speculative one at its commit).
    fn print_record(
        &mut self,
        bytes: &[u8],
        out: &mut dyn Write,
        errors: &mut dyn Write,
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
            let msg = fault_message(&self.desc, header.probe_id, &fault);
            errors.write_all(msg.as_bytes())?;
            errors.write_all(b"\n")?;
            let n = self.errors.entry(header.cpu).or_insert(0);
            *n = n.saturating_add(1);
            return Ok(Control::Continue);
        }
        let epd = self
            .desc
            .epids
            .get(&header.epid)
            .ok_or(ConsumeError::UnknownEpid(header.epid))?;
        // Decode everything first so a malformed record prints nothing.
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
        let mut buf = Vec::new();
        let quiet = self.opts.quiet;
        // A record of commit()/discard() alone prints no probe line.
        let probe_line = !quiet && !speculation::only_commit_discard(epd, header.flags);
        if probe_line {
            let probe = self
                .desc
                .probes
                .get(&header.probe_id)
                .ok_or(ConsumeError::UnknownProbe(header.probe_id))?;
            let name = format!("{}:{}", probe.function, probe.name);
            let line = if self.opts.testing {
                if !self.heading_printed {
                    buf.extend_from_slice(format!("{:>32}\n", "FUNCTION:NAME").as_bytes());
                }
                format!("{name:>32} ")
            } else {
                if !self.heading_printed {
                    buf.extend_from_slice(
                        format!("{:>3} {:>6} {:>32}\n", "CPU", "ID", "FUNCTION:NAME").as_bytes(),
                    );
                }
                format!("{:>3} {:>6} {:>32} ", header.cpu, header.probe_id, name)
            };
            buf.extend_from_slice(line.as_bytes());
        }
        let mut control = Control::Continue;
        let epid = header.epid;
        let mut printed = Vec::new();
        for (i, (a, vals)) in epd.actions.iter().zip(values.iter()).enumerate() {
            if !action_ran(header.flags, i) {
                continue;
            }
            match &a.kind {
                ActionKind::Trace => {
                    for v in vals {
                        let raw = self.opts.rawbytes.then_some(self.opts.strsize);
                        trace_value(v, quiet, raw, &self.env, &mut buf);
                    }
                }
                ActionKind::Printf { .. } => {
                    lookup_format(&self.formats, epid, i)?.apply_env(
                        vals,
                        &[],
                        &self.env,
                        &mut buf,
                    );
                }
                ActionKind::Tracemem => {
                    if let Some(Value::Bytes(b)) = vals.first() {
                        let n = match vals.get(1) {
                            Some(d) => (d.as_i64().max(0) as usize).min(b.len()),
                            None => b.len(),
                        };
                        print_bytes(&b[..n], 0, quiet, true, &mut buf);
                    }
                }
                ActionKind::System { .. } | ActionKind::Freopen { .. } => {
                    let mut text = Vec::new();
                    lookup_format(&self.formats, epid, i)?.apply_env(
                        vals,
                        &[],
                        &self.env,
                        &mut text,
                    );
                    // Output so far goes where it was going before.
                    emit(&mut self.redirect, out, &std::mem::take(&mut buf))?;
                    if matches!(a.kind, ActionKind::System { .. }) {
                        out.flush()?;
                        crate::effects::system(&text, errors)?;
                    } else {
                        self.redirect =
                            crate::effects::freopen(&text, self.redirect.take(), errors)?;
                    }
                }
                ActionKind::Setopt => {
                    let name = vals.first().map(value_text).unwrap_or_default();
                    let value = vals.get(1).map(value_text);
                    let r = match &mut self.setopt {
                        Some(f) => f(&name, value.as_deref(), &mut self.opts),
                        None => Err("Invalid option name".to_string()),
                    };
                    self.env.stackindent =
                        self.opts.stackindent.unwrap_or(DEFAULT_STACKINDENT) as usize;
                    if let Err(why) = r {
                        let probe = self
                            .desc
                            .probes
                            .get(&header.probe_id)
                            .cloned()
                            .unwrap_or_default();
                        let clause = epd.clause;
                        writeln!(
                            errors,
                            "dtrace: error in dt_clause_{clause} for probe ID {} ({}:{}:{}:{}): couldn't set option \"{name}\" to \"{}\": {why}\n",
                            header.probe_id,
                            probe.provider,
                            probe.module,
                            probe.function,
                            probe.name,
                            value.as_deref().unwrap_or("1"),
                        )?;
                    }
                }
                ActionKind::Symbol { module } => {
                    let addr = vals.first().map(|v| v.as_u64()).unwrap_or(0);
                    let text = if *module {
                        self.env.syms.module(addr)
                    } else {
                        self.env.syms.function(addr)
                    };
                    // Quiet or not, as libdtrace prints a symbol record:
                    // two spaces, then the name left-aligned in 50 columns.
                    buf.extend_from_slice(format!("  {text:<50}").as_bytes());
                }
                ActionKind::Ftruncate => {
                    emit(&mut self.redirect, out, &std::mem::take(&mut buf))?;
                    if let Some((_, f)) = &mut self.redirect {
                        crate::effects::truncate(f)?;
                    }
                }
                ActionKind::Exit => {
                    let status = vals.first().map(|v| v.as_i64() as i32).unwrap_or(0);
                    control = Control::Exit(status);
                }
                ActionKind::Printa { format, aggs: ids } => {
                    let descs = agg_descs(&self.desc, ids)?;
                    let rows = collect_rows(&descs, aggs, &self.opts, &self.env)?;
                    let normals = normals_of(&self.normals, ids);
                    if format.is_some() {
                        let f = lookup_format(&self.formats, epid, i)?;
                        print_rows_formatted(
                            &descs,
                            &normals,
                            &rows,
                            f,
                            self.opts.aggzoom,
                            &self.env,
                            &mut buf,
                        );
                    } else {
                        buf.push(b'\n');
                        print_rows(&descs, &normals, &rows, &self.opts, &self.env, &mut buf);
                    }
                    printed.extend(ids.iter().copied());
                }
                ActionKind::AggControl { op, agg } => {
                    let arg = vals.first().map(Value::as_i64);
                    agg_control(&self.desc, &mut self.normals, *op, *agg, arg, aggs)?;
                }
                ActionKind::Print { ty } => {
                    if let Some(Value::Bytes(b)) = vals.first() {
                        crate::print::print_value(ty, b, &mut buf);
                    }
                }
                // Handled by `record` (speculation.rs).
                ActionKind::Speculate | ActionKind::CommitDiscard { .. } => {}
            }
        }
        if probe_line {
            buf.push(b'\n');
        }
        emit(&mut self.redirect, out, &buf)?;
        // Only a record that was fully consumed changes the consumer's state.
        self.printed.extend(printed);
        self.heading_printed |= probe_line;
        Ok(control)
    }

    /// The faults counted per CPU since the last call (CPUs with none are left
    /// out), in CPU order. dtrace(1) prints each fault's message only (Oracle
    /// DTrace 2.x has no per-CPU count line); library users may want the tally.
    pub fn take_errors(&mut self) -> Vec<(u32, u64)> {
        std::mem::take(&mut self.errors).into_iter().collect()
    }

    /// Prints the aggregations dtrace(1) prints when tracing stops: every
    /// aggregation not already printed by printa, in ID order, one after another
    /// with no line between them; an aggregation with no data prints nothing.
    ///
    /// The single blank line dtrace(1) shows before them is the newline the CLI
    /// prints when tracing ends, not ours: after `^C` the Solaris Dynamic Tracing
    /// Guide ("syscall Provider" example, `@syscalls[probefunc] = count()`) shows
    /// exactly one blank line before the first row, and libdtrace's walkers
    /// (Oracle Solaris DTrace Guide, `dtrace_aggregate_walk_keyvarsorted()`
    /// example) print rows of several aggregations with nothing between them.
    pub fn finish(
        &mut self,
        out: &mut dyn Write,
        aggs: &mut dyn AggSource,
    ) -> Result<(), ConsumeError> {
        let mut buf = Vec::new();
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
            let descs = agg_descs(&self.desc, &[id])?;
            let rows = collect_rows(&descs, aggs, &self.opts, &self.env)?;
            let normals = normals_of(&self.normals, &[id]);
            print_rows(&descs, &normals, &rows, &self.opts, &self.env, &mut buf);
        }
        emit(&mut self.redirect, out, &buf)?;
        Ok(())
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
            let removed: Vec<&Row> = if n >= 0 {
                rows.iter().take(len.saturating_sub(keep)).collect()
            } else {
                rows.iter().skip(keep).collect()
            };
            for r in removed {
                aggs.remove(agg, &r.key);
            }
        }
    }
    Ok(())
}

/// Whether action `i` of a record ran: with the header's valid bit set, bit `i`
/// (for `i < 31`) says so; records without it ran every action.
pub(crate) fn action_ran(flags: u32, i: usize) -> bool {
    if flags & dtrace_codegen::RECORD_FLAGS_VALID == 0 || i >= 31 {
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

/// Appends one trace()d value. `rawbytes`: `Some(strsize)` when strings are
/// dumped in hex (as their `strsize + 1` bytes); structs and arrays always are.
fn trace_value(v: &Value, quiet: bool, rawbytes: Option<u32>, env: &Env, out: &mut Vec<u8>) {
    let s = match v {
        Value::Int { size, .. } => {
            // The value by its D type's signedness, right-aligned in a width set
            // by its size.
            let n = v.decimal();
            match (quiet, size) {
                (true, _) => n,
                (false, 1) => format!(" {n:>3}"),
                (false, 2) => format!(" {n:>5}"),
                (false, 4) => format!(" {n:>10}"),
                (false, _) => format!(" {n:>19}"),
            }
        }
        Value::Pointer(p) => {
            if quiet {
                (*p as i64).to_string()
            } else {
                format!(" {:>19}", *p as i64)
            }
        }
        Value::Str(s) => {
            if let Some(strsize) = rawbytes {
                let mut b = s.clone();
                b.resize((strsize as usize + 1).max(b.len() + 1), 0);
                print_bytes(&b, 33, quiet, true, out);
                return;
            }
            if !quiet {
                out.extend_from_slice(b"  ");
            }
            out.extend_from_slice(s);
            if !quiet {
                out.resize(out.len() + 33usize.saturating_sub(s.len()), b' ');
            }
            return;
        }
        // Structs, unions and arrays (char arrays too: only strings print as
        // text) are dumped in hex and ASCII.
        Value::Bytes(b) => {
            print_bytes(b, 33, quiet, true, out);
            return;
        }
        Value::Stack(pcs) => {
            print_stack(pcs, &env.syms, env.stackindent, out);
            return;
        }
        Value::UStack { pid, pcs } => {
            crate::ustack::print_ustack(*pid, pcs, env, out);
            return;
        }
        Value::UCapture(c) => {
            crate::ustack::print_capture(c, env, out);
            return;
        }
        Value::USym { kind, pid, addr } => {
            crate::ustack::print_usym(*kind, *pid, *addr, env, out);
            return;
        }
    };
    out.extend_from_slice(s.as_bytes());
}

fn printable(c: u8) -> bool {
    (0x20..0x7f).contains(&c) || matches!(c, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x07 | 0x08)
}

/// Prints raw bytes as dtrace does: as a string when they look like one
/// (printable characters, then only NULs), otherwise as a hex dump.
pub(crate) fn print_bytes(b: &[u8], width: usize, quiet: bool, raw: bool, out: &mut Vec<u8>) {
    if !raw && !b.is_empty() && b[0] != 0 {
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        if b[..end].iter().all(|&c| printable(c)) && b[end..].iter().all(|&c| c == 0) {
            if quiet {
                out.extend_from_slice(&b[..end]);
            } else {
                out.extend_from_slice(b"  ");
                out.extend_from_slice(&b[..end]);
                out.resize(out.len() + width.saturating_sub(end), b' ');
            }
            return;
        }
    }
    // Hex dump: a header of column offsets, then 16 bytes per line with their
    // printable characters.
    const MARGIN: usize = 5;
    out.push(b'\n');
    out.resize(out.len() + MARGIN + 6, b' ');
    for i in 0..16 {
        out.extend_from_slice(format!("  {i:x}").as_bytes());
    }
    out.extend_from_slice(b"  0123456789abcdef\n");
    for (n, chunk) in b.chunks(16).enumerate() {
        out.resize(out.len() + MARGIN, b' ');
        out.extend_from_slice(format!("{:>5x}:", n * 16).as_bytes());
        for j in 0..16 {
            match chunk.get(j) {
                Some(c) => out.extend_from_slice(format!(" {c:02x}").as_bytes()),
                None => out.extend_from_slice(b"   "),
            }
        }
        out.extend_from_slice(b"  ");
        for &c in chunk {
            out.push(if (0x20..0x7f).contains(&c) { c } else { b'.' });
        }
        out.push(b'\n');
    }
}

/// dtrace(1)'s message for a fault, in Oracle DTrace 2.x's form: the clause
/// (`dt_clause_N`, N its index in the program), the probe, the fault (with the
/// address for bad addresses and alignments) and the BPF offset:
/// `dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid
/// address (0x0) at BPF pc 28`.
pub fn fault_message(desc: &ProgramDesc, probe_id: u32, f: &FaultRecord) -> String {
    let unknown = ProbeName::default();
    let p = desc.probes.get(&probe_id).unwrap_or(&unknown);
    let what = match f.kind {
        // An invalid size names the size.
        FaultKind::BadAddr | FaultKind::BadAlign | FaultKind::BadSize => {
            format!("{} (0x{:x})", f.kind.message(), f.addr)
        }
        k => k.message().to_string(),
    };
    format!(
        "dtrace: error in dt_clause_{} for probe ID {} ({}:{}:{}:{}): {} at BPF pc {}",
        f.epid.saturating_sub(1),
        probe_id,
        p.provider,
        p.module,
        p.function,
        p.name,
        what,
        f.pc
    )
}

/// The `DTRACEDROP_*` tag of each kind of drop, which `-x droptags` shows.
pub mod droptag {
    pub const PRINCIPAL: &str = "DTRACEDROP_PRINCIPAL";
    pub const AGGREGATION: &str = "DTRACEDROP_AGGREGATION";
    pub const DYNAMIC: &str = "DTRACEDROP_DYNAMIC";
    pub const DYNRINSE: &str = "DTRACEDROP_DYNRINSE";
    pub const DYNDIRTY: &str = "DTRACEDROP_DYNDIRTY";
    pub const SPEC: &str = "DTRACEDROP_SPEC";
    pub const SPECBUSY: &str = "DTRACEDROP_SPECBUSY";
    pub const SPECUNAVAIL: &str = "DTRACEDROP_SPECUNAVAIL";
    pub const DBLERROR: &str = "DTRACEDROP_DBLERROR";
}

/// A drop message (`dtrace: ...`) with its tag after `dtrace: ` when `droptags`
/// is set: `dtrace: [DTRACEDROP_PRINCIPAL] 1 drop on CPU 0`.
pub fn with_droptag(message: &str, tag: &str, droptags: bool) -> String {
    match message.strip_prefix("dtrace: ") {
        Some(rest) if droptags => format!("dtrace: [{tag}] {rest}"),
        _ => message.to_string(),
    }
}

/// `dtrace: N drops on CPU C` (singular `drop` for one), for principal-buffer drops.
pub fn drops_message(cpu: u32, n: u64) -> String {
    format!("dtrace: {n} drop{} on CPU {cpu}", plural(n))
}

/// `dtrace: N aggregation drops on CPU C`.
pub fn agg_drops_message(cpu: u32, n: u64) -> String {
    format!("dtrace: {n} aggregation drop{} on CPU {cpu}", plural(n))
}

/// Why dynamic variables were dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DynDropKind {
    /// Out of dynamic variable space.
    Plain,
    /// ... while the rinsing list was not empty.
    Rinsing,
    /// ... while the dirty list was not empty.
    Dirty,
}

/// `dtrace: N dynamic variable drops` (with ` with non-empty rinsing list` or
/// ` with non-empty dirty list` for those causes).
pub fn dynvar_drops_message(n: u64, kind: DynDropKind) -> String {
    let why = match kind {
        DynDropKind::Plain => "",
        DynDropKind::Rinsing => " with non-empty rinsing list",
        DynDropKind::Dirty => " with non-empty dirty list",
    };
    format!("dtrace: {n} dynamic variable drop{}{why}", plural(n))
}

/// `dtrace: N speculative drops`.
pub fn spec_drops_message(n: u64) -> String {
    format!("dtrace: {n} speculative drop{}", plural(n))
}

/// `dtrace: N failed speculations (available buffer(s) still busy)` when `busy`,
/// else `dtrace: N failed speculations (no speculative buffer available)`.
pub fn spec_failed_message(n: u64, busy: bool) -> String {
    let why = if busy {
        "available buffer(s) still busy"
    } else {
        "no speculative buffer available"
    };
    format!("dtrace: {n} failed speculation{} ({why})", plural(n))
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
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

/// Writes finished output to the `freopen()` file, or to `out`.
fn emit(
    redirect: &mut Option<(String, std::fs::File)>,
    out: &mut dyn Write,
    buf: &[u8],
) -> Result<(), ConsumeError> {
    match redirect {
        Some((_, f)) => f.write_all(buf)?,
        None => out.write_all(buf)?,
    }
    Ok(())
}

/// Sets an option while tracing (`setopt()`): the option table is the
/// facade's, so the facade supplies this. It updates `opts` and returns why an
/// option cannot be set, in dtrace's words ("Invalid option name", ...).
pub type SetOption = Box<dyn FnMut(&str, Option<&str>, &mut ConsumerOptions) -> Result<(), String>>;
