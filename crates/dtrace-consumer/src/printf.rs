//! The D printf engine: parse a format once, then apply it to decoded [`Value`]s.
//!
//! Semantics follow C printf as D documents it ("Output Formatting" chapter of the
//! Solaris Dynamic Tracing Guide): flags `- + space # 0`, width and precision
//! (either may be `*`, taken from the next argument), length modifiers
//! `hh h l ll L j z t` (accepted; `h`/`hh` narrow the value, the wider ones keep the
//! value's own D type width, because D passes every argument at its type's size),
//! and the conversions `d i u o x X c C s S p a A e E f F g G Y %`, plus `%@...` in
//! printa.
//! Compile-time checks live in [`crate::printf_check`].

use crate::value::{mask, sign_extend, Value};

/// A width or precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Fixed(usize),
    /// `*`: taken from the next argument.
    Star,
}

/// A length modifier (`hh`, `h`, `l`, `ll`, `L`, `j`, `z`, `t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    None,
    Hh,
    H,
    L,
    Ll,
    LongDouble,
    J,
    Z,
    T,
}

impl Length {
    fn text(self) -> &'static str {
        match self {
            Length::None => "",
            Length::Hh => "hh",
            Length::H => "h",
            Length::L => "l",
            Length::Ll => "ll",
            Length::LongDouble => "L",
            Length::J => "j",
            Length::Z => "z",
            Length::T => "t",
        }
    }

    /// The byte width the modifier narrows an integer to, if it narrows.
    fn narrow(self) -> Option<u8> {
        match self {
            Length::Hh => Some(1),
            Length::H => Some(2),
            _ => None,
        }
    }
}

/// One `%` conversion of a format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// 1-based number among the format's conversions (`%%` counts, as in dtrace).
    pub number: usize,
    pub left: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: Option<Count>,
    pub prec: Option<Count>,
    pub length: Length,
    /// `%@...`: the aggregation value in printa.
    pub agg: bool,
    /// The conversion character, e.g. `d`, `x`, `s`, `%`.
    pub ch: char,
}

impl Conversion {
    /// The conversion's name as dtrace's messages show it: length modifier and
    /// conversion character, e.g. `d`, `lld`, `hx`.
    pub fn name(&self) -> String {
        format!("{}{}", self.length.text(), self.ch)
    }
}

/// A piece of a parsed format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Literal(Vec<u8>),
    Conv(Conversion),
}

/// A parsed format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    pub pieces: Vec<Piece>,
}

/// A format string that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based conversion number.
    pub conversion: usize,
    pub message: String,
}

const CONVERSIONS: &str = "diuoxXcCsSpaAeEfFgGY%";

/// Largest width or precision honoured (1 MiB).
const MAX_WIDTH: usize = 1 << 20;

impl Format {
    /// Parses a D format string.
    pub fn parse(fmt: &str) -> Result<Format, ParseError> {
        let b = fmt.as_bytes();
        let mut pieces = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        let mut number = 0;
        while i < b.len() {
            if b[i] != b'%' {
                lit.push(b[i]);
                i += 1;
                continue;
            }
            number += 1;
            let start = i;
            i += 1;
            let mut c = Conversion {
                number,
                left: false,
                plus: false,
                space: false,
                alt: false,
                zero: false,
                width: None,
                prec: None,
                length: Length::None,
                agg: false,
                ch: '%',
            };
            let mut dot = false;
            let err = |msg: String| ParseError {
                conversion: number,
                message: msg,
            };
            loop {
                let Some(&ch) = b.get(i) else {
                    return Err(err(format!(
                        "format conversion #{number} is missing a conversion character: {}",
                        &fmt[start..]
                    )));
                };
                i += 1;
                match ch {
                    b'-' if !dot => c.left = true,
                    b'+' if !dot => c.plus = true,
                    b' ' if !dot => c.space = true,
                    b'#' if !dot => c.alt = true,
                    b'\'' if !dot => {}
                    b'@' => c.agg = true,
                    // dtrace's `?`: pad to the width of a pointer in hex.
                    b'?' if !dot => c.width = Some(Count::Fixed(16)),
                    b'0' if !dot && c.width.is_none() => c.zero = true,
                    b'0'..=b'9' => {
                        let mut n: usize = (ch - b'0') as usize;
                        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                            n = n.saturating_mul(10).saturating_add((d - b'0') as usize);
                            i += 1;
                        }
                        // Cap absurd widths so a format cannot exhaust memory.
                        let n = n.min(MAX_WIDTH);
                        if dot {
                            c.prec = Some(Count::Fixed(n));
                        } else {
                            c.width = Some(Count::Fixed(n));
                        }
                    }
                    b'.' => {
                        if dot {
                            return Err(err(format!(
                                "format conversion #{number} has more than one '.' specified"
                            )));
                        }
                        dot = true;
                        c.prec = Some(Count::Fixed(0));
                    }
                    b'*' => {
                        let slot = if dot { &mut c.prec } else { &mut c.width };
                        if *slot == Some(Count::Star) {
                            return Err(err(format!(
                                "format conversion #{number} has more than one '*' specified for the output {}",
                                if dot { "precision" } else { "width" }
                            )));
                        }
                        *slot = Some(Count::Star);
                    }
                    b'h' => {
                        c.length = if c.length == Length::H {
                            Length::Hh
                        } else {
                            Length::H
                        }
                    }
                    b'l' => {
                        c.length = if c.length == Length::L {
                            Length::Ll
                        } else {
                            Length::L
                        }
                    }
                    b'L' => c.length = Length::LongDouble,
                    b'j' => c.length = Length::J,
                    b'z' => c.length = Length::Z,
                    b't' => c.length = Length::T,
                    _ if CONVERSIONS.as_bytes().contains(&ch) => {
                        c.ch = ch as char;
                        break;
                    }
                    _ => {
                        let end = (i).min(fmt.len());
                        return Err(err(format!(
                            "format conversion #{number} is undefined: {}",
                            String::from_utf8_lossy(&b[start..end])
                        )));
                    }
                }
            }
            if !lit.is_empty() {
                pieces.push(Piece::Literal(std::mem::take(&mut lit)));
            }
            pieces.push(Piece::Conv(c));
        }
        if !lit.is_empty() {
            pieces.push(Piece::Literal(lit));
        }
        Ok(Format { pieces })
    }

    /// The conversions, in order.
    pub fn conversions(&self) -> impl Iterator<Item = &Conversion> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Conv(c) => Some(c),
            Piece::Literal(_) => None,
        })
    }

    /// Number of value arguments (including `*` widths and precisions) the format
    /// consumes, excluding `%@` conversions.
    pub fn nargs(&self) -> usize {
        self.conversions()
            .map(|c| {
                let stars = [c.width, c.prec]
                    .iter()
                    .filter(|x| **x == Some(Count::Star))
                    .count();
                stars + usize::from(c.ch != '%' && !c.agg)
            })
            .sum()
    }

    /// Applies the format to `args` (printf) appending the output to `out`.
    /// Missing arguments print nothing for their conversion.
    pub fn apply(&self, args: &[Value], out: &mut Vec<u8>) {
        self.apply_printa(args, &[], out)
    }

    /// Applies the format for printa: ordinary conversions take `args` (the keys)
    /// in order, `%@` conversions take `aggs` in order.
    pub fn apply_printa(&self, args: &[Value], aggs: &[AggArg], out: &mut Vec<u8>) {
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
                            Some(AggArg::Value(v)) => convert(&c, v, out),
                            Some(AggArg::Rendered(text)) => out.extend_from_slice(text),
                            None => {}
                        }
                    } else if let Some(v) = args.next() {
                        convert(&c, v, out);
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

/// Formats one value with one conversion, appending to `out`.
pub fn convert(c: &Conversion, v: &Value, out: &mut Vec<u8>) {
    match c.ch {
        // "If the argument is unsigned, it will be printed as an unsigned value"
        // (Solaris Dynamic Tracing Guide, "Conversion Formats", d): dtrace turns
        // %d of an unsigned argument into %u, so no sign flag applies either.
        'd' | 'i' if !is_signed(v) => {
            let u = Conversion {
                ch: 'u',
                ..c.clone()
            };
            convert(&u, v, out);
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
        's' => {
            let s: Vec<u8> = match v {
                Value::Str(s) | Value::Bytes(s) => s.clone(),
                other => other.as_i64().to_string().into_bytes(),
            };
            let n = fixed(c.prec).map_or(s.len(), |p| p.min(s.len()));
            pad(c, &s[..n], out);
        }
        'S' => {
            let s: &[u8] = match v {
                Value::Str(s) | Value::Bytes(s) => s,
                _ => b"",
            };
            let esc = escape(s);
            let n = fixed(c.prec).map_or(esc.len(), |p| p.min(esc.len()));
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
        'a' | 'A' => {
            // %a/%A (kernel/user symbol) print the address in hex, as dtrace does
            // for an address no symbol covers, until symbol lookup exists.
            let u = v.as_u64();
            let digits = with_precision(c, format!("{u:x}").into_bytes(), u == 0);
            pad_number(c, b"0x", &digits, c.prec.is_none(), out);
        }
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
        'Y' => {
            let s = walltime(v.as_i64());
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
        Value::Str(_) | Value::Bytes(_) => true,
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

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `%Y`: nanoseconds since the epoch as `%Y %b %e %T` (e.g. `2004 Jul 26 16:23:58`),
/// in UTC.
pub fn walltime(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mon = MONTHS
        .get((month - 1).clamp(0, 11) as usize)
        .copied()
        .unwrap_or("???");
    format!(
        "{year} {mon} {day:>2} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
