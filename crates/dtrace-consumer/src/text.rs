//! dtrace(1)'s text output: one [`Output`] over the consumer's events.
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
//!
//! A record's output is written when its [`Event::ProbeEnd`] arrives (or when
//! `system()`/`freopen()`/`ftruncate()` need what came before it written);
//! fault, drop and `setopt()` messages go to the error stream at once.

use crate::aggregate::{print_rows, print_rows_formatted};
use crate::event::{
    AggReport, Context, DropEvent, DropKind, Event, FaultEvent, Output, SetoptError,
};
use crate::folded::{folds, print_folded};
use crate::printf::Env;
use crate::symbols::print_stack;
use crate::value::Value;
use crate::ConsumeError;
use dtrace_desc::FaultKind;
use std::fs::File;
use std::io::Write;

/// dtrace(1)'s text on `out`, its messages on `err`.
pub struct TextOutput<W: Write, E: Write> {
    out: W,
    err: E,
    heading_printed: bool,
    /// The current record's probe line is printed (not quiet, not a
    /// commit/discard-only record).
    probe_line: bool,
    /// The current record's output so far.
    buf: Vec<u8>,
    /// Where output goes after `freopen()` (None: `out`).
    redirect: Option<(String, File)>,
    /// `-F`: each CPU's indentation.
    flow: crate::flow::FlowIndent,
}

impl<W: Write, E: Write> TextOutput<W, E> {
    /// Text on `out`, messages on `err`.
    pub fn new(out: W, err: E) -> TextOutput<W, E> {
        TextOutput {
            out,
            err,
            heading_printed: false,
            probe_line: false,
            buf: Vec::new(),
            redirect: None,
            flow: Default::default(),
        }
    }

    /// The output stream (for the CLI's own lines).
    pub fn out_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The message stream.
    pub fn err_mut(&mut self) -> &mut E {
        &mut self.err
    }

    /// The two streams back.
    pub fn into_parts(self) -> (W, E) {
        (self.out, self.err)
    }

    /// Writes the buffered output to the `freopen()` file, or to `out`.
    fn emit(&mut self) -> Result<(), ConsumeError> {
        // The buffer keeps its capacity for the next record.
        let r = match &mut self.redirect {
            Some((_, f)) => f.write_all(&self.buf),
            None => self.out.write_all(&self.buf),
        };
        self.buf.clear();
        r?;
        Ok(())
    }

    /// With `aggfmt=folded`, prints a one-aggregation report whose key has a
    /// stack as folded stacks; false when it does not fold.
    fn fold(&mut self, cx: &Context<'_>, r: &AggReport) -> bool {
        let [agg] = &r.aggs[..] else {
            return false;
        };
        if !cx.opts.folded || !folds(agg) {
            return false;
        }
        let normal = r.normals.first().copied().unwrap_or(1);
        print_folded(&r.rows, 0, normal, cx.env, &mut self.buf);
        true
    }

    fn probe(&mut self, cx: &Context<'_>, p: &crate::event::ProbeEvent) {
        if cx.opts.flowindent {
            self.flow_line(cx, p);
            return;
        }
        self.probe_line = !cx.opts.quiet && !p.commit_discard_only;
        if !self.probe_line {
            return;
        }
        let name = format!("{}:{}", p.probe.function, p.probe.name);
        let line = if cx.opts.testing {
            if !self.heading_printed {
                self.buf
                    .extend_from_slice(format!("{:>32}\n", "FUNCTION:NAME").as_bytes());
            }
            format!("{name:>32} ")
        } else {
            if !self.heading_printed {
                self.buf.extend_from_slice(
                    format!("{:>3} {:>6} {:>32}\n", "CPU", "ID", "FUNCTION:NAME").as_bytes(),
                );
            }
            format!("{:>3} {:>6} {:>32} ", p.cpu, p.id, name)
        };
        self.buf.extend_from_slice(line.as_bytes());
    }
}

impl<W: Write, E: Write> TextOutput<W, E> {
    /// `-F`: the probe line as a step of the call flow (printed under `-q`
    /// as well, then without the newline that ends the record).
    fn flow_line(&mut self, cx: &Context<'_>, p: &crate::event::ProbeEvent) {
        self.probe_line = false;
        if p.commit_discard_only {
            return;
        }
        if !self.heading_printed {
            let head = if cx.opts.testing {
                format!("{:<41}\n", "FUNCTION")
            } else {
                format!("{:>3} {:<41}\n", "CPU", "FUNCTION")
            };
            self.buf.extend_from_slice(head.as_bytes());
            self.heading_printed = true;
        }
        let name = self.flow.line(p);
        let line = if cx.opts.testing {
            format!("{name:<41} ")
        } else {
            format!("{:>3} {name:<41} ", p.cpu)
        };
        self.buf.extend_from_slice(line.as_bytes());
        self.probe_line = !cx.opts.quiet;
    }
}

impl<W: Write, E: Write> Output for TextOutput<W, E> {
    fn event(&mut self, cx: &Context<'_>, ev: &Event) -> Result<(), ConsumeError> {
        let quiet = cx.opts.quiet;
        match ev {
            Event::Probe(p) => self.probe(cx, p),
            Event::Trace(v) => {
                let raw = cx.opts.rawbytes.then_some(cx.opts.strsize);
                trace_value(v, quiet, raw, cx.env, &mut self.buf);
            }
            Event::Printf { text, .. } => self.buf.extend_from_slice(text),
            Event::Tracemem(b) => print_bytes(b, 0, quiet, true, &mut self.buf),
            Event::Symbol { text, .. } => {
                // Quiet or not, as libdtrace prints a symbol record: two
                // spaces, then the name left-aligned in 50 columns.
                self.buf
                    .extend_from_slice(format!("  {text:<50}").as_bytes());
            }
            Event::Print { ty, bytes, addr } => {
                crate::print::print_value(ty, bytes, *addr, &mut self.buf)
            }
            Event::Printa(r) if r.format.is_none() && self.fold(cx, r) => {}
            Event::Printa(r) => {
                let descs: Vec<_> = r.aggs.iter().collect();
                match &r.format {
                    Some(f) => print_rows_formatted(
                        &descs,
                        &r.normals,
                        &r.rows,
                        f,
                        cx.opts.aggzoom,
                        cx.env,
                        &mut self.buf,
                    ),
                    None => {
                        self.buf.push(b'\n');
                        print_rows(&descs, &r.normals, &r.rows, cx.opts, cx.env, &mut self.buf);
                    }
                }
            }
            Event::System(cmd) => {
                // Output so far goes where it was going before.
                self.emit()?;
                self.out.flush()?;
                crate::effects::system(cmd, &mut self.err)?;
            }
            Event::Freopen(path) => {
                self.emit()?;
                self.redirect = crate::effects::freopen(path, self.redirect.take(), &mut self.err)?;
            }
            Event::Ftruncate => {
                self.emit()?;
                if let Some((_, f)) = &mut self.redirect {
                    crate::effects::truncate(f)?;
                }
            }
            Event::Exit(_) => {}
            Event::Setopt(e) => writeln!(self.err, "{}\n", setopt_message(e))?,
            Event::ProbeEnd => {
                if self.probe_line {
                    self.buf.push(b'\n');
                }
                self.emit()?;
                self.heading_printed |= self.probe_line;
                self.probe_line = false;
            }
            Event::Aggregation(r) if self.fold(cx, r) => self.emit()?,
            Event::Aggregation(r) => {
                let descs: Vec<_> = r.aggs.iter().collect();
                print_rows(&descs, &r.normals, &r.rows, cx.opts, cx.env, &mut self.buf);
                self.emit()?;
            }
            Event::Fault(f) => writeln!(self.err, "{}", fault_message(f))?,
            Event::Drop(d) => {
                let line = drop_message(d);
                writeln!(
                    self.err,
                    "{}",
                    with_droptag(&line, d.kind.tag(), cx.opts.droptags)
                )?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ConsumeError> {
        self.emit()?;
        self.out.flush()?;
        Ok(())
    }
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

/// Whether bytes print as a string rather than a hex dump: printable
/// characters, then only NULs.
pub(crate) fn looks_like_string(b: &[u8]) -> Option<&[u8]> {
    if b.is_empty() || b[0] == 0 {
        return None;
    }
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    (b[..end].iter().all(|&c| printable(c)) && b[end..].iter().all(|&c| c == 0)).then(|| &b[..end])
}

/// Prints raw bytes as dtrace does: as a string when they look like one
/// (printable characters, then only NULs), otherwise as a hex dump.
pub(crate) fn print_bytes(b: &[u8], width: usize, quiet: bool, raw: bool, out: &mut Vec<u8>) {
    if !raw {
        if let Some(s) = looks_like_string(b) {
            if quiet {
                out.extend_from_slice(s);
            } else {
                out.extend_from_slice(b"  ");
                out.extend_from_slice(s);
                out.resize(out.len() + width.saturating_sub(s.len()), b' ');
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

/// A fault's description: the fault, with the address for bad addresses and
/// alignments and the size for bad sizes.
pub fn fault_text(kind: FaultKind, addr: u64) -> String {
    match kind {
        FaultKind::BadAddr | FaultKind::BadAlign | FaultKind::BadSize => {
            format!("{} (0x{:x})", kind.message(), addr)
        }
        k => k.message().to_string(),
    }
}

/// dtrace(1)'s message for a fault, in Oracle DTrace 2.x's form: the clause
/// (`dt_clause_N`, N its index in the program), the probe, the fault (with the
/// address for bad addresses and alignments) and the BPF offset:
/// `dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid
/// address (0x0) at BPF pc 28`.
pub fn fault_message(f: &FaultEvent) -> String {
    let p = &f.probe;
    format!(
        "dtrace: error in dt_clause_{} for probe ID {} ({}:{}:{}:{}): {} at BPF pc {}",
        f.epid.saturating_sub(1),
        f.probe_id,
        p.provider,
        p.module,
        p.function,
        p.name,
        fault_text(f.kind, f.addr),
        f.pc
    )
}

/// dtrace(1)'s message for a refused `setopt()` (without the blank line that
/// follows it).
pub fn setopt_message(e: &SetoptError) -> String {
    let p = &e.probe;
    format!(
        "dtrace: error in dt_clause_{} for probe ID {} ({}:{}:{}:{}): couldn't set option \"{}\" to \"{}\": {}",
        e.clause,
        e.probe_id,
        p.provider,
        p.module,
        p.function,
        p.name,
        e.name,
        e.value.as_deref().unwrap_or("1"),
        e.why,
    )
}

/// A drop message (`dtrace: ...`) with its tag after `dtrace: ` when `droptags`
/// is set: `dtrace: [DTRACEDROP_PRINCIPAL] 1 drop on CPU 0`.
pub fn with_droptag(message: &str, tag: &str, droptags: bool) -> String {
    match message.strip_prefix("dtrace: ") {
        Some(rest) if droptags => format!("dtrace: [{tag}] {rest}"),
        _ => message.to_string(),
    }
}

/// dtrace(1)'s message for drops, without the tag:
/// - `dtrace: N drops on CPU C` (singular `drop` for one), principal buffer;
/// - `dtrace: N aggregation drops on CPU C`;
/// - `dtrace: N dynamic variable drops` (with ` with non-empty rinsing list`
///   or ` with non-empty dirty list` for those causes);
/// - `dtrace: N speculative drops`;
/// - `dtrace: N failed speculations (available buffer(s) still busy)` or
///   `(no speculative buffer available)`.
pub fn drop_message(d: &DropEvent) -> String {
    let n = d.count;
    let s = plural(n);
    let cpu = d.cpu.unwrap_or(0);
    match d.kind {
        DropKind::Principal => format!("dtrace: {n} drop{s} on CPU {cpu}"),
        DropKind::Aggregation => format!("dtrace: {n} aggregation drop{s} on CPU {cpu}"),
        DropKind::Dynamic => format!("dtrace: {n} dynamic variable drop{s}"),
        DropKind::DynRinse => {
            format!("dtrace: {n} dynamic variable drop{s} with non-empty rinsing list")
        }
        DropKind::DynDirty => {
            format!("dtrace: {n} dynamic variable drop{s} with non-empty dirty list")
        }
        DropKind::Spec => format!("dtrace: {n} speculative drop{s}"),
        DropKind::SpecBusy => {
            format!("dtrace: {n} failed speculation{s} (available buffer(s) still busy)")
        }
        DropKind::SpecUnavail => {
            format!("dtrace: {n} failed speculation{s} (no speculative buffer available)")
        }
        DropKind::StackStrOverflow => {
            format!("dtrace: {n} jstack()/ustack() string table overflow{s}")
        }
        DropKind::DblError => format!("dtrace: {n} error{s} in ERROR probe enabling"),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
