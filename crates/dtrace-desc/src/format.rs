//! The one D printf grammar: a format string parsed into literal text and
//! conversions, and the rules that match a format against its arguments.
//!
//! The compiler checks `printf`/`printa` formats with [`check`]; the consumer
//! applies the same parsed [`Format`] to decoded values (it reaches these types
//! through `dtrace_codegen::desc`). Nothing else parses formats.
//!
//! Grammar (the "Output Formatting" chapter of the Dynamic Tracing Guide): `%`,
//! flags `- + space # 0 '` and dtrace's `?` (pad to a pointer's width), an optional
//! width (digits or `*`), an optional precision (`.` then digits or `*`), length
//! modifiers `hh h l ll L j z t w`, then a conversion character among
//! `a A c C d i e E f F g G k o p s S u x X Y %`; printa also takes `@`
//! (the aggregation's value). Errors use dtrace's wording
//! (`format conversion #1 has more than one '.' specified`).

/// A width or precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Fixed(usize),
    /// `*`: taken from the next argument.
    Star,
}

/// A length modifier (`hh`, `h`, `l`, `ll`, `L`, `j`, `z`, `t`, `w`).
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
    W,
}

impl Length {
    pub fn text(self) -> &'static str {
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
            Length::W => "w",
        }
    }

    /// The byte width the modifier narrows an integer to, if it narrows.
    pub fn narrow(self) -> Option<u8> {
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

    /// What the conversion's value argument must be.
    pub fn want(&self) -> Want {
        match self.ch {
            'd' | 'i' | 'c' | 'C' | 'u' | 'o' | 'x' | 'X' => Want::Int,
            's' | 'S' => Want::Str,
            'p' | 'a' | 'A' => Want::Addr,
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => Want::Double,
            'k' => Want::Stack,
            'Y' | 'T' => Want::Time,
            _ => Want::None,
        }
    }
}

/// What a conversion consumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Integers (and pointers, which D passes as integers).
    Int,
    /// A string or a `char` array.
    Str,
    /// An address: a pointer or an integer.
    Addr,
    Double,
    /// A `stack()` value.
    Stack,
    /// Nanoseconds since the epoch.
    Time,
    /// Nothing (`%%`).
    None,
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

/// A format string that could not be parsed (dtrace reports these as `D_SYNTAX`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based conversion number.
    pub conversion: usize,
    pub message: String,
}

const CONVERSIONS: &str = "aAcCdieEfFgGkopsSuTxXY%";

/// First of the 256 private-use characters that stand for the bytes of a
/// format string that are not UTF-8 (see [`format_text`]).
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// A D string constant as format text: valid UTF-8 is kept, and each byte of
/// an invalid sequence (a D string is any bytes: `"\xc0"`) becomes a
/// private-use character that [`Format::parse`] turns back into that byte, so
/// the format prints exactly the constant's bytes.
pub fn format_text(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                s.push_str(valid);
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                s.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad = e.error_len().unwrap_or(after.len()).min(after.len());
                for b in &after[..bad] {
                    s.extend(char::from_u32(RAW_BYTE_BASE + u32::from(*b)));
                }
                rest = &after[bad..];
            }
        }
    }
    s
}

/// A literal piece's bytes with [`format_text`]'s stand-ins turned back into
/// the bytes they stand for.
fn raw_bytes(lit: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(lit) else {
        return lit.to_vec();
    };
    let mut out = Vec::with_capacity(lit.len());
    for ch in text.chars() {
        match u32::from(ch).checked_sub(RAW_BYTE_BASE) {
            Some(b) if b <= 0xff => out.push(b as u8),
            _ => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out
}

/// Largest width or precision honoured (16 MiB): enough for any real layout,
/// small enough that a format cannot exhaust memory.
pub const MAX_WIDTH: usize = 1 << 24;

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
            i += 1;
            let (c, next) = parse_conversion(b, i, number)?;
            i = next;
            if !lit.is_empty() {
                pieces.push(Piece::Literal(raw_bytes(&std::mem::take(&mut lit))));
            }
            pieces.push(Piece::Conv(c));
        }
        if !lit.is_empty() {
            pieces.push(Piece::Literal(raw_bytes(&lit)));
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

    /// What each value argument is for, in order: `*` widths and precisions,
    /// then the conversion's own value (`%%` and `%@` take none).
    pub fn slots(&self) -> Vec<Slot<'_>> {
        let mut out = Vec::new();
        for c in self.conversions() {
            if c.ch == '%' {
                continue;
            }
            if c.width == Some(Count::Star) {
                out.push(Slot::Width(c));
            }
            if c.prec == Some(Count::Star) {
                out.push(Slot::Prec(c));
            }
            if !c.agg {
                out.push(Slot::Value(c));
            }
        }
        out
    }

    /// Number of value arguments (including `*` widths and precisions) the format
    /// consumes, excluding `%@` conversions.
    pub fn nargs(&self) -> usize {
        self.slots().len()
    }
}

/// What one value argument of a format is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot<'a> {
    Width(&'a Conversion),
    Prec(&'a Conversion),
    Value(&'a Conversion),
}

fn parse_conversion(
    b: &[u8],
    mut i: usize,
    number: usize,
) -> Result<(Conversion, usize), ParseError> {
    let err = |m: &str| ParseError {
        conversion: number,
        message: format!("format conversion #{number} {m}"),
    };
    let start = i;
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
    loop {
        let Some(&ch) = b.get(i) else {
            return Err(err("name expected before end of format string"));
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
                if b.get(i) == Some(&b'$') {
                    return Err(err("uses unsupported positional format (%n$)"));
                }
                let n = n.min(MAX_WIDTH);
                if dot {
                    c.prec = Some(Count::Fixed(n));
                } else {
                    c.width = Some(Count::Fixed(n));
                }
            }
            b'.' => {
                if dot {
                    return Err(err("has more than one '.' specified"));
                }
                dot = true;
                c.prec = Some(Count::Fixed(0));
            }
            b'*' => {
                let slot = if dot { &mut c.prec } else { &mut c.width };
                if *slot == Some(Count::Star) {
                    return Err(err(&format!(
                        "has more than one '*' specified for the output {}",
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
            b'w' => c.length = Length::W,
            b'%' if i - 1 > start => {
                return Err(err("cannot be combined with other format flags: %%"));
            }
            _ if CONVERSIONS.as_bytes().contains(&ch) => {
                c.ch = ch as char;
                break;
            }
            _ => {
                return Err(err(&format!(
                    "is undefined: %{}",
                    String::from_utf8_lossy(&b[start..i])
                )));
            }
        }
    }
    Ok((c, i))
}

/// What kind of D type an argument has, as far as formats care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// Any C integer type (char, short, int, long, long long, enums).
    Int,
    Pointer,
    /// `string` or a `char` array.
    String,
    /// float/double/long double.
    Float,
    /// A `stack()` value.
    Stack,
    /// An aggregation (`@a`).
    Aggregation,
    /// Anything else (structs, unions, void, ...).
    Other,
}

/// An argument's type: its kind and its D type name for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgType {
    pub kind: ArgKind,
    /// The type's name as dtrace prints it, e.g. `int`, `char *`, `string`.
    pub name: String,
}

impl ArgType {
    pub fn new(kind: ArgKind, name: impl Into<String>) -> ArgType {
        ArgType {
            kind,
            name: name.into(),
        }
    }
}

/// Which check failed; each is one dtrace `D_*` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// `D_PRINTF_FMT_EMPTY`
    FmtEmpty,
    /// `D_SYNTAX`: the format does not parse.
    Syntax,
    /// `D_PRINTF_ARG_PROTO`: a conversion has no argument.
    ArgProto,
    /// `D_PRINTF_ARG_TYPE`: an argument does not suit its conversion.
    ArgType,
    /// `D_PRINTF_ARG_EXTRA`: more arguments than conversions.
    ArgExtra,
    /// `D_PRINTF_DYN_PROTO`: a `*` has no argument.
    DynProto,
    /// `D_PRINTF_DYN_TYPE`: a `*` argument is not an integer.
    DynType,
    /// `D_PRINTF_AGG_CONV`: `%@` outside printa.
    AggConv,
}

/// A failed check: which, dtrace's message, and the argument it is about (an
/// index into the value arguments), if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError {
    pub kind: CheckKind,
    pub message: String,
    pub arg: Option<usize>,
}

/// The prototype a conversion expects (as dtrace's message names it) and the
/// argument kinds that satisfy it.
fn prototype(want: Want) -> (&'static str, &'static [ArgKind]) {
    use ArgKind::*;
    match want {
        Want::Int => ("char, short, int, long, or long long", &[Int, Pointer]),
        Want::Str => ("char [] or string (or use stringof)", &[String]),
        Want::Addr => ("pointer or integer", &[Int, Pointer]),
        Want::Double => ("double", &[Float]),
        Want::Stack => ("stack", &[Stack]),
        Want::Time => ("int64_t", &[Int]),
        Want::None => ("", &[]),
    }
}

/// Checks `format` against its value arguments' types. `func` names the action
/// in messages (`printf`, `printa`); with `printa`, `%@` is allowed and extra
/// arguments (aggregation keys) are not an error. Returns the parsed format.
pub fn check(
    func: &str,
    format: &str,
    args: &[ArgType],
    printa: bool,
) -> Result<Format, CheckError> {
    let err = |kind, message: String, arg| CheckError { kind, message, arg };
    if format.is_empty() {
        return Err(err(
            CheckKind::FmtEmpty,
            format!("{func}( ) format string is empty"),
            None,
        ));
    }
    let parsed = Format::parse(format).map_err(|e| err(CheckKind::Syntax, e.message, None))?;
    let mut next = 0usize;
    for slot in parsed.slots() {
        let a = args.get(next);
        match slot {
            Slot::Width(c) | Slot::Prec(c) => {
                let text = if matches!(slot, Slot::Width(_)) {
                    "*"
                } else {
                    ".*"
                };
                let name = c.name();
                let Some(a) = a else {
                    return Err(err(
                        CheckKind::DynProto,
                        format!(
                            "{func}( ) prototype mismatch: conversion #{} (%{name}) is missing a corresponding \"{text}\" argument",
                            c.number
                        ),
                        None,
                    ));
                };
                if a.kind != ArgKind::Int {
                    return Err(err(
                        CheckKind::DynType,
                        format!(
                            "{func}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: % {text} {name}\n\t prototype: int\n\t  argument: {}",
                            next + 2,
                            c.number,
                            a.name
                        ),
                        Some(next),
                    ));
                }
            }
            Slot::Value(c) => {
                let name = c.name();
                let Some(a) = a else {
                    return Err(err(
                        CheckKind::ArgProto,
                        format!(
                            "{func}( ) prototype mismatch: conversion #{} (%{name}) is missing a corresponding value argument",
                            c.number
                        ),
                        None,
                    ));
                };
                let (proto, ok) = prototype(c.want());
                if !ok.contains(&a.kind) {
                    return Err(err(
                        CheckKind::ArgType,
                        format!(
                            "{func}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: %{name}\n\t prototype: {proto}\n\t  argument: {}",
                            next + 2,
                            c.number,
                            a.name
                        ),
                        Some(next),
                    ));
                }
            }
        }
        next += 1;
    }
    if !printa {
        if parsed.conversions().any(|c| c.agg) {
            return Err(err(
                CheckKind::AggConv,
                format!("%@ conversion requires an aggregation and is not for use with {func}( )"),
                None,
            ));
        }
        if args.len() > next {
            return Err(err(
                CheckKind::ArgExtra,
                format!(
                    "{func}( ) prototype mismatch: only {next} arguments required by this format string"
                ),
                Some(next),
            ));
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int() -> ArgType {
        ArgType::new(ArgKind::Int, "int")
    }
    fn string() -> ArgType {
        ArgType::new(ArgKind::String, "string")
    }

    #[test]
    fn bytes_that_are_not_utf8_survive_a_format() {
        let text = format_text(b"a\xc0\xa8\x01\x17%d\xffz");
        let f = Format::parse(&text).expect("parses");
        let lits: Vec<&[u8]> = f
            .pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Literal(l) => Some(l.as_slice()),
                Piece::Conv(_) => None,
            })
            .collect();
        assert_eq!(lits, vec![&b"a\xc0\xa8\x01\x17"[..], &b"\xffz"[..]]);
    }

    #[test]
    fn parses_flags_widths_and_lengths() {
        let f = Format::parse("a%-*.*s %% %llx %?p\n").unwrap();
        let c: Vec<&Conversion> = f.conversions().collect();
        assert_eq!(c.len(), 4);
        assert!(c[0].left);
        assert_eq!(c[0].width, Some(Count::Star));
        assert_eq!(c[0].prec, Some(Count::Star));
        assert_eq!(c[1].ch, '%');
        assert_eq!(c[2].length, Length::Ll);
        assert_eq!(c[2].name(), "llx");
        assert_eq!(c[3].width, Some(Count::Fixed(16)));
        assert_eq!(f.nargs(), 5);
    }

    #[test]
    fn parse_errors_use_dtrace_wording() {
        let e = |s: &str| Format::parse(s).unwrap_err().message;
        assert_eq!(
            e("%"),
            "format conversion #1 name expected before end of format string"
        );
        assert_eq!(
            e("%.*"),
            "format conversion #1 name expected before end of format string"
        );
        assert_eq!(
            e("%.*.*d"),
            "format conversion #1 has more than one '.' specified"
        );
        assert_eq!(
            e("%d %1$d"),
            "format conversion #2 uses unsupported positional format (%n$)"
        );
        assert_eq!(e("%q"), "format conversion #1 is undefined: %q");
        assert_eq!(
            e("%5%"),
            "format conversion #1 cannot be combined with other format flags: %%"
        );
        assert_eq!(
            e("%**d"),
            "format conversion #1 has more than one '*' specified for the output width"
        );
    }

    #[test]
    fn dynamic_width_and_precision_checks() {
        let e = check("printf", "%s %*d\n", &[string()], false).unwrap_err();
        assert_eq!(e.kind, CheckKind::DynProto);
        assert!(e
            .message
            .ends_with("conversion #2 (%d) is missing a corresponding \"*\" argument"));
        let e = check("printf", "%.*d", &[string(), int()], false).unwrap_err();
        assert_eq!(e.kind, CheckKind::DynType);
        assert!(e
            .message
            .contains("\tconversion: % .* d\n\t prototype: int\n\t  argument: string"));
        let e = check("printf", "%*d", &[int()], false).unwrap_err();
        assert_eq!(e.kind, CheckKind::ArgProto);
        assert!(e
            .message
            .ends_with("conversion #1 (%d) is missing a corresponding value argument"));
    }

    #[test]
    fn argument_types_and_counts() {
        let agg = ArgType::new(ArgKind::Aggregation, "aggregation");
        let e = check("printf", "%d", &[agg], false).unwrap_err();
        assert_eq!(e.kind, CheckKind::ArgType);
        assert!(e.message.ends_with(
            "prototype: char, short, int, long, or long long\n\t  argument: aggregation"
        ));
        let e = check("printf", "%@d", &[int()], false).unwrap_err();
        assert_eq!(e.kind, CheckKind::AggConv);
        let e = check("printf", "%d", &[int(), int()], false).unwrap_err();
        assert_eq!(e.kind, CheckKind::ArgExtra);
        assert_eq!(e.arg, Some(1));
        assert!(check("printa", "%d %@d", &[int(), int()], true).is_ok());
        let e = check("printf", "", &[], false).unwrap_err();
        assert_eq!(e.kind, CheckKind::FmtEmpty);
    }
}
