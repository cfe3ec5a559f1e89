//! Structured output: FreeBSD dtrace(1)'s JSON schema (section STRUCTURED
//! OUTPUT of its man page), as one document or as NDJSON. docs/JSON.md is the
//! reference, with the choices made where the man page is silent.
//!
//! - Document (`-O json`, `-x oformat=json`): `{"dtrace":{"probes":[...]}}`,
//!   one probe object per line inside the list; [`JsonOutput::close`] ends
//!   the document, and the CLI calls it on every way out.
//! - NDJSON (`-x oformat=ndjson`): the same probe objects, one per line,
//!   flushed after each.
//!
//! A probe object: `timestamp` (CLOCK_REALTIME nanoseconds when the object is
//! written), `cpu`, `id`, `provider`, `module`, `function`, `name`, `output`
//! (one element per action). Drops are `dtrace:INTERNAL:INTERNAL:DROP`
//! objects; faults carry an `error` object instead of `output`.

use crate::aggregate::{AggValue, Row};
use crate::event::{AggReport, Context, DropEvent, Event, FaultEvent, Output, ProbeEvent};
use crate::printf::Env;
use crate::quantize::bucket_rows;
use crate::symbols::KernelSymbols;
use crate::text::{drop_message, fault_text, looks_like_string, setopt_message};
use crate::value::Value;
use crate::ConsumeError;
use dtrace_desc::{AggFunc, StackKind};
use std::fmt::Write as _;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

/// Which structured form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFormat {
    /// One JSON document.
    Document,
    /// One JSON document, indented (`json,pretty`).
    PrettyDocument,
    /// One probe object per line.
    Ndjson,
}

/// Structured output on `out`; messages that are not data (a `system()`
/// command that cannot run, a refused `setopt()`) go to `err` as text.
pub struct JsonOutput<W: Write, E: Write> {
    out: W,
    err: E,
    format: JsonFormat,
    /// The document's opening has been written.
    opened: bool,
    /// The document's end has been written.
    closed: bool,
    /// Probe objects written so far.
    count: u64,
    /// The probe object being built and its output elements.
    current: Option<(ProbeEvent, Vec<String>)>,
    /// Aggregations printed at exit, written as one `dtrace:::END` object.
    at_exit: Vec<String>,
    /// The END probe's ID, for that object (-1 when the program has none).
    end_id: i64,
}

impl<W: Write, E: Write> JsonOutput<W, E> {
    /// Structured output of `format` on `out`.
    pub fn new(out: W, err: E, format: JsonFormat) -> JsonOutput<W, E> {
        JsonOutput {
            out,
            err,
            format,
            opened: false,
            closed: false,
            count: 0,
            current: None,
            at_exit: Vec::new(),
            end_id: -1,
        }
    }

    /// The output stream.
    pub fn out_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The message stream.
    pub fn err_mut(&mut self) -> &mut E {
        &mut self.err
    }

    /// Ends the document (writes what is pending, then `]}}`); later calls do
    /// nothing. A document with no probe objects is `{"dtrace":{"probes":[]}}`.
    pub fn close(&mut self) -> Result<(), ConsumeError> {
        if self.closed {
            return Ok(());
        }
        self.write_exit_object()?;
        match self.format {
            JsonFormat::Document => {
                self.open()?;
                self.out.write_all(b"\n]}}\n")?;
            }
            JsonFormat::PrettyDocument => {
                self.open()?;
                let end = if self.count == 0 {
                    "]\n  }\n}\n"
                } else {
                    "\n    ]\n  }\n}\n"
                };
                self.out.write_all(end.as_bytes())?;
            }
            JsonFormat::Ndjson => {}
        }
        self.closed = true;
        self.out.flush()?;
        Ok(())
    }

    /// The two streams back (after [`JsonOutput::close`]).
    pub fn into_parts(self) -> (W, E) {
        (self.out, self.err)
    }

    fn open(&mut self) -> Result<(), ConsumeError> {
        if !self.opened {
            match self.format {
                JsonFormat::Document => self.out.write_all(b"{\"dtrace\":{\"probes\":[")?,
                JsonFormat::PrettyDocument => self
                    .out
                    .write_all(b"{\n  \"dtrace\": {\n    \"probes\": [")?,
                JsonFormat::Ndjson => {}
            }
        }
        self.opened = true;
        Ok(())
    }

    /// Writes one probe object (its fields, without the braces).
    fn write_object(&mut self, fields: &str) -> Result<(), ConsumeError> {
        if self.closed {
            return Ok(());
        }
        self.open()?;
        let sep = match (self.format, self.count) {
            (JsonFormat::Document, 0) => "\n",
            (JsonFormat::Document, _) => ",\n",
            (JsonFormat::PrettyDocument, 0) => "\n      ",
            (JsonFormat::PrettyDocument, _) => ",\n      ",
            (JsonFormat::Ndjson, _) => "",
        };
        let ts = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mut line = format!("{sep}{{\"timestamp\":{ts},{fields}}}");
        if self.format == JsonFormat::PrettyDocument {
            line = format!("{sep}{}", pretty(&line[sep.len()..], 6));
        }
        self.out.write_all(line.as_bytes())?;
        if self.format == JsonFormat::Ndjson {
            self.out.write_all(b"\n")?;
            self.out.flush()?;
        }
        self.count += 1;
        Ok(())
    }

    fn write_exit_object(&mut self) -> Result<(), ConsumeError> {
        if self.at_exit.is_empty() {
            return Ok(());
        }
        let output = std::mem::take(&mut self.at_exit).join(",");
        let end = dtrace_desc::ProbeName {
            provider: "dtrace".into(),
            name: "END".into(),
            ..Default::default()
        };
        let fields = format!(
            "{},\"output\":[{output}]",
            probe_fields(-1, self.end_id, &end)
        );
        self.write_object(&fields)
    }
}

impl<W: Write, E: Write> Output for JsonOutput<W, E> {
    fn event(&mut self, cx: &Context<'_>, ev: &Event) -> Result<(), ConsumeError> {
        let syms = cx.env;
        let element = match ev {
            Event::Probe(p) => {
                self.current = Some((p.clone(), Vec::new()));
                None
            }
            // A stack is its own element, `{"stack-frames": [...]}`
            // (`{"ustack-frames": [...]}` for a user stack), as is a user
            // symbol (`{"usym": ...}`, `{"umod": ...}`, `{"uaddr": ...}`).
            Event::Trace(v @ (Value::Stack(_) | Value::UStack { .. } | Value::UCapture(_))) => {
                Some(datum(v, syms))
            }
            Event::Trace(Value::USym { kind, pid, addr }) => {
                Some(user_symbol(*kind, *pid, *addr, syms))
            }
            Event::Trace(v) => Some(format!("{{\"value\":{}}}", datum(v, syms))),
            Event::Printf { text, args } => {
                let mut e = format!("{{\"message\":{}}}", string(text));
                for a in args {
                    let _ = write!(e, ",{{\"value\":{}}}", datum(a, syms));
                }
                Some(e)
            }
            Event::Tracemem(b) => Some(format!("{{\"tracemem\":{}}}", byte_array(b))),
            Event::Symbol { addr, module, text } => Some(symbol(*addr, *module, text, &syms.syms)),
            Event::Print { ty, bytes, addr } => {
                let mut text = Vec::new();
                crate::print::print_value(ty, bytes, *addr, &mut text);
                let start = text.iter().position(|c| !c.is_ascii_whitespace());
                let end = text.iter().rposition(|c| !c.is_ascii_whitespace());
                let trimmed = match (start, end) {
                    (Some(a), Some(b)) => &text[a..=b],
                    _ => &[][..],
                };
                Some(format!("{{\"print\":{}}}", string(trimmed)))
            }
            Event::Printa(r) => Some(aggregations(r, syms)),
            Event::System(cmd) => {
                self.out.flush()?;
                crate::effects::system(cmd, &mut self.err)?;
                None
            }
            // Structured output stays on one stream.
            Event::Freopen(_) | Event::Ftruncate | Event::Exit(_) => None,
            Event::Setopt(e) => {
                writeln!(self.err, "{}\n", setopt_message(e))?;
                None
            }
            Event::ProbeEnd => {
                if let Some((p, output)) = self.current.take() {
                    // A commit()/discard()-only record is no firing of its own.
                    if !(p.commit_discard_only && output.is_empty()) {
                        let fields = format!(
                            "{},\"output\":[{}]",
                            probe_fields(p.cpu as i64, p.id as i64, &p.probe),
                            output.join(",")
                        );
                        self.write_object(&fields)?;
                    }
                }
                None
            }
            Event::Aggregation(r) => {
                if let Some((id, _)) =
                    cx.desc.probes.iter().find(|(_, p)| {
                        p.provider == "dtrace" && p.module.is_empty() && p.name == "END"
                    })
                {
                    self.end_id = i64::from(*id);
                }
                if !r.rows.is_empty() {
                    self.at_exit.push(aggregations(r, syms));
                }
                None
            }
            Event::Fault(f) => {
                self.write_object(&fault_fields(f))?;
                None
            }
            Event::Drop(d) => {
                self.write_object(&drop_fields(d))?;
                None
            }
        };
        if let (Some(e), Some((_, output))) = (element, self.current.as_mut()) {
            output.push(e);
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ConsumeError> {
        self.write_exit_object()?;
        self.out.flush()?;
        Ok(())
    }
}

fn probe_fields(cpu: i64, id: i64, p: &dtrace_desc::ProbeName) -> String {
    format!(
        "\"cpu\":{cpu},\"id\":{id},\"provider\":{},\"module\":{},\"function\":{},\"name\":{}",
        string(p.provider.as_bytes()),
        string(p.module.as_bytes()),
        string(p.function.as_bytes()),
        string(p.name.as_bytes()),
    )
}

fn fault_fields(f: &FaultEvent) -> String {
    format!(
        "{},\"error\":{{\"fault\":{},\"addr\":\"0x{:x}\",\"action\":{},\"offset\":{},\"epid\":{},\"msg\":{}}}",
        probe_fields(f.cpu as i64, f.probe_id as i64, &f.probe),
        f.kind as u32,
        f.addr,
        f.action,
        f.pc,
        f.epid,
        string(fault_text(f.kind, f.addr).as_bytes()),
    )
}

fn drop_fields(d: &DropEvent) -> String {
    let internal = dtrace_desc::ProbeName {
        provider: "dtrace".into(),
        module: "INTERNAL".into(),
        function: "INTERNAL".into(),
        name: "DROP".into(),
    };
    // libdtrace's drop message: without dtrace(1)'s "dtrace: " prefix, with
    // the newline.
    let text = drop_message(d);
    let msg = format!("{}\n", text.strip_prefix("dtrace: ").unwrap_or(&text));
    format!(
        "{},\"count\":{},\"total\":{},\"kind\":{},\"msg\":{}",
        probe_fields(d.cpu.map(i64::from).unwrap_or(-1), -1, &internal),
        d.count,
        d.total,
        d.kind as u32,
        string(msg.as_bytes()),
    )
}

/// Indents compact JSON (as this module writes it): two spaces a level from
/// `base`, a space after each `:`, empty objects and arrays kept on one line.
fn pretty(compact: &str, base: usize) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = base;
    let (mut in_str, mut escaped) = (false, false);
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat(' ').take(depth));
    };
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 2;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(2);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

/// A JSON string from bytes (invalid UTF-8 replaced).
pub(crate) fn string(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn byte_array(b: &[u8]) -> String {
    let items: Vec<String> = b.iter().map(|c| c.to_string()).collect();
    format!("[{}]", items.join(","))
}

/// A traced value as JSON: integers exact (signed by their D type), pointers
/// as `"0x..."`, strings as strings, byte arrays as a string when they look
/// like one and an array of byte values otherwise, stacks as frames.
fn datum(v: &Value, env: &Env) -> String {
    match v {
        Value::Int { .. } => v.decimal(),
        Value::Pointer(p) => format!("\"0x{p:x}\""),
        Value::Str(s) => string(s),
        Value::Bytes(b) => match looks_like_string(b) {
            Some(s) => string(s),
            None => byte_array(b),
        },
        Value::Stack(pcs) => format!("{{\"stack-frames\":{}}}", frames(pcs, &env.syms)),
        Value::UStack { pid, pcs } => user_frames(*pid, pcs, env),
        Value::UCapture(c) => {
            let pcs = crate::ustack::capture_frames(c, c.pcs.len(), &env.usyms);
            user_frames(c.pid, &pcs, env)
        }
        Value::USym { kind, pid, addr } => {
            string(crate::ustack::usym_text(*kind, *pid, *addr, env).as_bytes())
        }
    }
}

/// A user stack as `{"ustack-frames": [...]}`: the frames as kernel stack
/// frames are written, `{"symbol","module","name","offset"}`, innermost
/// first; a frame in no known function has only `symbol` (and `module` when
/// it is in a mapped object), and with `-x noresolve` only `symbol` and
/// `module`.
fn user_frames(pid: u64, pcs: &[u64], env: &Env) -> String {
    let items: Vec<String> = crate::ustack::user_frames(pid, pcs, env)
        .iter()
        .map(|f| {
            let mut o = format!("{{\"symbol\":{}", string(f.symbol.as_bytes()));
            if let Some(m) = &f.module {
                let _ = write!(o, ",\"module\":{}", string(m.as_bytes()));
            }
            if let Some((name, off)) = &f.function {
                let _ = write!(
                    o,
                    ",\"name\":{},\"offset\":\"0x{off:x}\"",
                    string(name.as_bytes())
                );
            }
            o.push('}');
            o
        })
        .collect();
    format!("{{\"ustack-frames\":[{}]}}", items.join(","))
}

/// A traced user symbol under its own key: `usym()`/`ufunc()` as
/// `{"usym","object","name"}`, `uaddr()` as `{"uaddr","object","name","offset"}`,
/// `umod()` as `{"umod": module}`; an address in no known function has the
/// text alone (`"0x..."` when in no known object either).
fn user_symbol(kind: StackKind, pid: u64, addr: u64, env: &Env) -> String {
    let text = crate::ustack::usym_text(kind, pid, addr, env);
    let key = match kind {
        StackKind::UMod => return format!("{{\"umod\":{}}}", string(text.as_bytes())),
        StackKind::KSym => return format!("{{\"sym\":{}}}", string(text.as_bytes())),
        StackKind::KMod => return format!("{{\"mod\":{}}}", string(text.as_bytes())),
        StackKind::UAddr => "uaddr",
        _ => "usym",
    };
    let mut o = format!("{{\"{key}\":{}", string(text.as_bytes()));
    if !env.noresolve {
        let r = env.usyms.resolve(u32::try_from(pid).unwrap_or(0), addr);
        if let (Some(m), Some((name, off))) = (&r.module, &r.function) {
            let _ = write!(
                o,
                ",\"object\":{},\"name\":{}",
                string(m.as_bytes()),
                string(name.as_bytes())
            );
            if kind == StackKind::UAddr {
                let _ = write!(o, ",\"offset\":\"0x{off:x}\"");
            }
        }
    }
    o.push('}');
    o
}

/// Stack frames as `{"symbol","module","name","offset"}` objects, innermost
/// first; an address no symbol covers has only `symbol`.
fn frames(pcs: &[u64], syms: &KernelSymbols) -> String {
    let items: Vec<String> = syms
        .frames(pcs)
        .iter()
        .map(|&pc| match syms.lookup(pc) {
            Some((s, off)) => format!(
                "{{\"symbol\":{},\"module\":{},\"name\":{},\"offset\":\"0x{off:x}\"}}",
                string(syms.describe(pc).as_bytes()),
                string(s.module.as_deref().unwrap_or("vmlinux").as_bytes()),
                string(s.name.as_bytes()),
            ),
            None => format!("{{\"symbol\":\"0x{pc:x}\"}}"),
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// `sym()`: `{"sym","object","name"}` (or `{"sym":"0x...","offset":...}` for
/// an unknown address); `mod()`: `{"mod": name}`.
fn symbol(addr: u64, module: bool, text: &str, syms: &KernelSymbols) -> String {
    if module {
        return format!("{{\"mod\":{}}}", string(text.as_bytes()));
    }
    match syms.lookup(addr) {
        Some((s, _)) => format!(
            "{{\"sym\":{},\"object\":{},\"name\":{}}}",
            string(text.as_bytes()),
            string(s.module.as_deref().unwrap_or("vmlinux").as_bytes()),
            string(s.name.as_bytes()),
        ),
        None => format!("{{\"sym\":\"0x{addr:x}\",\"offset\":\"0x0\"}}"),
    }
}

/// A snapshot of every aggregation as one JSON array, with the elements a
/// `printa()` gives: `[{"aggregation-name": n, "aggregation-data": [rows]}, ...]`
/// (the library's `Session::snapshot_json`, and Python's `snapshot()`).
pub fn snapshot_json(reports: &[AggReport], env: &Env) -> String {
    let elems: Vec<String> = reports
        .iter()
        .map(|r| aggregations(r, env))
        .filter(|s| !s.is_empty())
        .collect();
    format!("[{}]", elems.join(","))
}

/// One element per aggregation of a printa (or of the exit-time output):
/// `{"aggregation-name": n, "aggregation-data": [rows]}`.
fn aggregations(r: &AggReport, syms: &Env) -> String {
    let mut elems = Vec::new();
    for (i, agg) in r.aggs.iter().enumerate() {
        let normal = r.normals.get(i).copied().unwrap_or(1);
        let rows: Vec<String> = r
            .rows
            .iter()
            .filter_map(|row| row_json(row, i, &agg.func, normal, syms))
            .collect();
        let name = if agg.name.is_empty() { "_" } else { &agg.name };
        elems.push(format!(
            "{{\"aggregation-name\":{},\"aggregation-data\":[{}]}}",
            string(name.as_bytes()),
            rows.join(",")
        ));
    }
    elems.join(",")
}

fn row_json(row: Row<'_>, i: usize, func: &AggFunc, normal: u64, syms: &Env) -> Option<String> {
    let value = row.values.get(i)?.as_ref()?.normalized(normal);
    let keys: Vec<String> = row
        .keys
        .iter()
        .map(|k| match k {
            Value::Stack(_) | Value::UStack { .. } | Value::UCapture(_) => datum(k, syms),
            _ => format!("{{\"value\":{}}}", datum(k, syms)),
        })
        .collect();
    let keys = keys.join(",");
    let data = match (&value, func) {
        (AggValue::Dist(counts), _) => {
            let n = normal.clamp(1, i64::MAX as u64) as i64;
            let buckets: Vec<String> = bucket_rows(func, counts)
                .iter()
                .map(|b| {
                    let mut s = format!("{{\"value\":{},\"count\":{}", b.value, b.count / n);
                    if b.underflow {
                        s.push_str(",\"underflow\":true");
                    }
                    if b.overflow {
                        s.push_str(",\"overflow\":true");
                    }
                    s.push('}');
                    s
                })
                .collect();
            format!("\"buckets\":[{}]", buckets.join(","))
        }
        (v, f) => format!("\"{}\":{}", func_name(f), v.scalar().unwrap_or(0)),
    };
    Some(format!("{{\"keys\":[{keys}],{data}}}"))
}

fn func_name(f: &AggFunc) -> &'static str {
    match f {
        AggFunc::Count => "count",
        AggFunc::Sum => "sum",
        AggFunc::Avg => "avg",
        AggFunc::Min => "min",
        AggFunc::Max => "max",
        AggFunc::Stddev => "stddev",
        AggFunc::Quantize => "quantize",
        AggFunc::Lquantize { .. } => "lquantize",
        AggFunc::Llquantize { .. } => "llquantize",
    }
}
