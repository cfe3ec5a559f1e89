//! The D printf engine: apply a parsed format to decoded [`Value`]s.
//!
//! The grammar (flags, widths, precisions, `*`, length modifiers, conversions)
//! is the compiler's, one parser for both (`dtrace_sema::format`, reached
//! through `dtrace_desc`); this module only prints. Semantics follow C
//! printf as D documents it ("Output Formatting" chapter of the Dynamic Tracing
//! Guide): `h`/`hh` narrow a value, wider modifiers keep the value's own D type
//! width (D passes every argument at its type's size); `%a`/`%A` print kernel
//! symbols, `%k` a stack, `%Y` a walltime in the local time zone.

pub use dtrace_desc::{Conversion, Count, Format, FormatError as ParseError, Length, Piece};

use crate::symbols::{print_stack, KernelSymbols};
use crate::value::{mask, sign_extend, Value};
use crate::walltime::{time822_in, walltime_in, TimeZone};

/// Largest width or precision honoured at run time (`*` arguments).
const MAX_WIDTH: usize = dtrace_desc::MAX_FORMAT_WIDTH;

/// What formatting needs beyond the values: symbols for `%a`/`%k`, the stack
/// indent, the time zone for `%Y`.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub syms: KernelSymbols,
    pub stackindent: usize,
    pub tz: TimeZone,
    /// User address spaces, for user stacks and symbols.
    pub usyms: dtrace_usym::UserSymbols,
    /// `-x noresolve`: user addresses print unresolved.
    pub noresolve: bool,
}

/// Applying a parsed [`Format`].
pub trait Apply {
    /// Applies the format to `args` (printf) appending the output to `out`.
    /// Missing arguments print nothing for their conversion.
    fn apply(&self, args: &[Value], out: &mut Vec<u8>);
    /// Applies the format for printa: ordinary conversions take `args` (the keys)
    /// in order, `%@` conversions take `aggs` in order.
    fn apply_printa(&self, args: &[Value], aggs: &[AggArg], out: &mut Vec<u8>);
    /// As [`Apply::apply_printa`], with symbols and a time zone.
    fn apply_env(&self, args: &[Value], aggs: &[AggArg], env: &Env, out: &mut Vec<u8>);
}

impl Apply for Format {
    fn apply(&self, args: &[Value], out: &mut Vec<u8>) {
        self.apply_env(args, &[], &Env::default(), out)
    }

    fn apply_printa(&self, args: &[Value], aggs: &[AggArg], out: &mut Vec<u8>) {
        self.apply_env(args, aggs, &Env::default(), out)
    }

    fn apply_env(&self, args: &[Value], aggs: &[AggArg], env: &Env, out: &mut Vec<u8>) {
        let mut args = args.iter();
        let mut aggs = aggs.iter();
        for p in &self.pieces {
            match p {
                Piece::Literal(l) => out.extend_from_slice(l),
                Piece::Conv(c) => {
                    let mut c = c.clone();
                    if c.width == Some(Count::Star) {
                        let w = args.next().map(|v| v.as_i64()).unwrap_or(0);
                        if w < 0 {
                            c.left = true;
                        }
                        c.width =
                            Some(Count::Fixed(w.unsigned_abs().min(MAX_WIDTH as u64) as usize));
                    }
                    if c.prec == Some(Count::Star) {
                        let p = args.next().map(|v| v.as_i64()).unwrap_or(0);
                        c.prec = if p < 0 {
                            None
                        } else {
                            Some(Count::Fixed(p.min(MAX_WIDTH as i64) as usize))
                        };
                    }
                    if c.ch == '%' {
                        out.push(b'%');
                    } else if c.agg {
                        match aggs.next() {
                            Some(AggArg::Value(v)) => convert_env(&c, v, env, out),
                            Some(AggArg::Rendered(text)) => out.extend_from_slice(text),
                            None => {}
                        }
                    } else if let Some(v) = args.next() {
                        convert_env(&c, v, env, out);
                    }
                }
            }
        }
    }
}

/// An aggregation value for a `%@` conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AggArg {
    /// A scalar result (count, sum, avg, min, max, stddev).
    Value(Value),
    /// A distribution already rendered as text (quantize and friends).
    Rendered(Vec<u8>),
}

fn fixed(c: Option<Count>) -> Option<usize> {
    match c {
        Some(Count::Fixed(n)) => Some(n),
        _ => None,
    }
}

/// Pads `body` (already including any sign/prefix) to the conversion's width with spaces.
fn pad(c: &Conversion, body: &[u8], out: &mut Vec<u8>) {
    let width = fixed(c.width).unwrap_or(0);
    let fill = width.saturating_sub(body.len());
    if c.left {
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(body);
    }
}

/// Emits `prefix` + `digits` padded as C does for numbers: zeros go between the
/// prefix and the digits when the `0` flag applies.
fn pad_number(c: &Conversion, prefix: &[u8], digits: &[u8], zero_ok: bool, out: &mut Vec<u8>) {
    let width = fixed(c.width).unwrap_or(0);
    let len = prefix.len() + digits.len();
    if c.zero && !c.left && zero_ok && width > len {
        out.extend_from_slice(prefix);
        out.resize(out.len() + (width - len), b'0');
        out.extend_from_slice(digits);
    } else {
        let mut body = prefix.to_vec();
        body.extend_from_slice(digits);
        pad(c, &body, out);
    }
}

/// The integer a conversion sees: the value at its own width, narrowed by `h`/`hh`.
fn int_parts(c: &Conversion, v: &Value) -> (i64, u64) {
    let mut size = v.int_size();
    if let Some(n) = c.length.narrow() {
        size = size.min(n);
    }
    // The raw bits at the value's own size; C's conversions then view them as
    // signed (d, i) or unsigned (u, o, x, X, c) at `size`.
    let bits = match v {
        Value::Int { bits, .. } => *bits,
        other => other.as_u64(),
    };
    (sign_extend(bits, size), mask(bits, size))
}

fn sign_prefix(c: &Conversion, negative: bool) -> &'static [u8] {
    if negative {
        b"-"
    } else if c.plus {
        b"+"
    } else if c.space {
        b" "
    } else {
        b""
    }
}

fn with_precision(c: &Conversion, mut digits: Vec<u8>, is_zero: bool) -> Vec<u8> {
    if let Some(p) = fixed(c.prec) {
        if p == 0 && is_zero {
            digits.clear();
        }
        if digits.len() < p {
            let mut d = vec![b'0'; p - digits.len()];
            d.extend_from_slice(&digits);
            digits = d;
        }
    }
    digits
}

/// The common case of an integer conversion with no flags, width or
/// precision (`%d`, `%u`, `%x`, `%X`), written straight into `out` without
/// the intermediate strings the general path builds. False (and nothing
/// written) for anything else.
fn plain_integer(c: &Conversion, v: &Value, out: &mut Vec<u8>) -> bool {
    use std::io::Write;
    if c.width.is_some() || c.prec.is_some() || c.left || c.plus || c.space || c.alt || c.zero {
        return false;
    }
    if !matches!(v, Value::Int { .. } | Value::Pointer(_)) {
        return false;
    }
    let (s, u) = int_parts(c, v);
    // Writing into a Vec cannot fail.
    let _ = match c.ch {
        'd' | 'i' if is_signed(v) => write!(out, "{s}"),
        'd' | 'i' | 'u' => write!(out, "{u}"),
        'x' => write!(out, "{u:x}"),
        'X' => write!(out, "{u:X}"),
        _ => return false,
    };
    true
}

/// Formats one value with one conversion, appending to `out` (no symbols, UTC).
pub fn convert(c: &Conversion, v: &Value, out: &mut Vec<u8>) {
    convert_env(c, v, &Env::default(), out)
}

/// Formats one value with one conversion, appending to `out`.
pub fn convert_env(c: &Conversion, v: &Value, env: &Env, out: &mut Vec<u8>) {
    if plain_integer(c, v, out) {
        return;
    }
    match c.ch {
        // "If the argument is unsigned, it will be printed as an unsigned value"
        // (Solaris Dynamic Tracing Guide, "Conversion Formats", d): dtrace turns
        // %d of an unsigned argument into %u, so no sign flag applies either.
        'd' | 'i' if !is_signed(v) => {
            let u = Conversion {
                ch: 'u',
                ..c.clone()
            };
            convert_env(&u, v, env, out);
        }
        'd' | 'i' => {
            let (s, _) = int_parts(c, v);
            let digits = with_precision(c, s.unsigned_abs().to_string().into_bytes(), s == 0);
            pad_number(c, sign_prefix(c, s < 0), &digits, c.prec.is_none(), out);
        }
        'u' | 'o' | 'x' | 'X' => {
            let (_, u) = int_parts(c, v);
            let mut digits = match c.ch {
                'u' => u.to_string(),
                'o' => format!("{u:o}"),
                'x' => format!("{u:x}"),
                _ => format!("{u:X}"),
            }
            .into_bytes();
            digits = with_precision(c, digits, u == 0);
            let mut prefix: &[u8] = b"";
            if c.alt {
                match c.ch {
                    'o' if digits.first() != Some(&b'0') => digits.insert(0, b'0'),
                    'x' if u != 0 => prefix = b"0x",
                    'X' if u != 0 => prefix = b"0X",
                    _ => {}
                }
            }
            pad_number(c, prefix, &digits, c.prec.is_none(), out);
        }
        'c' => {
            let (_, u) = int_parts(c, v);
            pad(c, &[u as u8], out);
        }
        // %C: the character itself when printable ASCII, else its escape
        // sequence ("Conversion Formats", C, and the escape table of "Strings").
        'C' => {
            let (_, u) = int_parts(c, v);
            let b = u as u8;
            let body = if (0x20..0x7f).contains(&b) {
                vec![b]
            } else {
                escape(&[b])
            };
            pad(c, &body, out);
        }
        // A string precision of 0 sets no limit (dtrace prints `%0.0s` of
        // "hello" as "hello").
        's' => {
            let s: Vec<u8> = match v {
                Value::Str(s) | Value::Bytes(s) => s.clone(),
                other => other.as_i64().to_string().into_bytes(),
            };
            let n = fixed(c.prec)
                .filter(|p| *p > 0)
                .map_or(s.len(), |p| p.min(s.len()));
            pad(c, &s[..n], out);
        }
        'S' => {
            let s: &[u8] = match v {
                Value::Str(s) | Value::Bytes(s) => s,
                _ => b"",
            };
            let esc = escape(s);
            let n = fixed(c.prec)
                .filter(|p| *p > 0)
                .map_or(esc.len(), |p| p.min(esc.len()));
            pad(c, &esc[..n], out);
        }
        // %p: "printed as a hexadecimal (base 16) integer ... If the # flag is
        // specified, 0x will be prepended to non-zero results" ("Conversion
        // Formats", p).
        'p' => {
            let u = v.as_u64();
            let digits = with_precision(c, format!("{u:x}").into_bytes(), u == 0);
            let prefix: &[u8] = if c.alt && u != 0 { b"0x" } else { b"" };
            pad_number(c, prefix, &digits, c.prec.is_none(), out);
        }
        // %a/%A: the address as a kernel symbol, `module`function+0xoff`
        // (hex when no symbol covers it).
        'a' | 'A' => {
            let text = match v {
                Value::USym { kind, pid, addr } => {
                    crate::ustack::usym_text(*kind, *pid, *addr, env)
                }
                _ => env.syms.describe(v.as_u64()),
            };
            pad(c, text.as_bytes(), out);
        }
        // %k: a stack, one frame per line.
        'k' => match v {
            Value::Stack(pcs) => print_stack(pcs, &env.syms, env.stackindent, out),
            Value::UStack { pid, pcs } => crate::ustack::print_ustack(*pid, pcs, env, out),
            _ => {}
        },
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let x = match v {
                Value::Int { signed: false, .. } | Value::Pointer(_) => v.as_u64() as f64,
                // A float, double or long double, recorded as its bytes.
                Value::Bytes(b) => float_from_bytes(b),
                _ => v.as_i64() as f64,
            };
            let prec = fixed(c.prec).unwrap_or(6);
            let body = match c.ch {
                'f' | 'F' => format!("{:.*}", prec, x.abs()),
                'e' | 'E' => exp_form(x.abs(), prec, c.alt),
                _ => general_form(x.abs(), prec, c.alt),
            };
            let body = if c.ch.is_ascii_uppercase() {
                body.to_ascii_uppercase()
            } else {
                body
            };
            let body = if c.alt && !body.contains('.') && matches!(c.ch, 'f' | 'F') {
                format!("{body}.")
            } else {
                body
            };
            pad_number(
                c,
                sign_prefix(c, x.is_sign_negative() && x != 0.0),
                body.as_bytes(),
                true,
                out,
            );
        }
        'Y' | 'T' => {
            let s = if c.ch == 'T' {
                time822_in(v.as_i64(), &env.tz)
            } else {
                walltime_in(v.as_i64(), &env.tz)
            };
            let n = fixed(c.prec).map_or(s.len(), |p| p.min(s.len()));
            pad(c, &s.as_bytes()[..n], out);
        }
        _ => out.push(b'%'),
    }
}

/// The value of a C floating type from its bytes (little-endian, as on x86-64): `float` (4),
/// `double` (8) or x86's 80-bit `long double` (in 16 bytes), as an `f64`.
fn float_from_bytes(b: &[u8]) -> f64 {
    let bytes = |r: std::ops::Range<usize>| -> Option<[u8; 8]> {
        let mut w = [0u8; 8];
        let src = b.get(r)?;
        w.get_mut(..src.len())?.copy_from_slice(src);
        Some(w)
    };
    match b.len() {
        4 => bytes(0..4).map_or(0.0, |w| {
            f64::from(f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        }),
        8 => bytes(0..8).map_or(0.0, f64::from_le_bytes),
        16 => {
            let (Some(m), Some(e)) = (bytes(0..8), bytes(8..10)) else {
                return 0.0;
            };
            let mant = u64::from_le_bytes(m);
            let se = u16::from_le_bytes([e[0], e[1]]);
            let sign = if se & 0x8000 != 0 { -1.0 } else { 1.0 };
            let exp = i32::from(se & 0x7fff);
            if exp == 0 && mant == 0 {
                return 0.0 * sign;
            }
            if exp == 0x7fff {
                return if mant << 1 == 0 {
                    sign * f64::INFINITY
                } else {
                    f64::NAN
                };
            }
            // value = mant * 2^(exp - 16383 - 63)
            sign * (mant as f64) * 2f64.powi(exp - 16383 - 63)
        }
        _ => 0.0,
    }
}

/// Whether D sees the value as signed (pointers are unsigned).
fn is_signed(v: &Value) -> bool {
    match v {
        Value::Int { signed, .. } => *signed,
        Value::Pointer(_) => false,
        Value::Str(_)
        | Value::Bytes(_)
        | Value::Stack(_)
        | Value::UStack { .. }
        | Value::UCapture(_) => true,
        Value::USym { .. } => false,
    }
}

/// C's `%e` body for a non-negative `x`: `d.ddddde+XX`.
fn exp_form(x: f64, prec: usize, alt: bool) -> String {
    let s = format!("{:.*e}", prec, x);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && prec == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}{dot}e{sign}{:02}", exp.unsigned_abs())
}

/// C's `%g` body for a non-negative `x`.
fn general_form(x: f64, prec: usize, alt: bool) -> String {
    let p = if prec == 0 { 1 } else { prec };
    let exp = if x == 0.0 {
        0
    } else {
        let s = format!("{:.*e}", p - 1, x);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let mut s = if (exp as i64) < p as i64 && exp >= -4 {
        format!("{:.*}", (p as i64 - 1 - exp as i64).max(0) as usize, x)
    } else {
        exp_form(x, p - 1, alt)
    };
    if !alt {
        let (mant, rest) = match s.find('e') {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            mant
        };
        s = mant + &rest;
    }
    s
}

/// `%S`: the string with C escapes for quotes, backslashes and control characters.
pub fn escape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\v"),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    out
}

/// `%Y` in UTC: nanoseconds since the epoch as `%Y %b %e %T`.
pub fn walltime(ns: i64) -> String {
    walltime_in(ns, &TimeZone::utc())
}
