//! Compile-time checking of printf/printa formats against argument types, for the
//! compiler to raise dtrace's `D_PRINTF_*` errors with dtrace's wording.
//!
//! The message texts are dtrace(1)'s (`printf( ) argument #2 is incompatible with
//! conversion #1 prototype: ...`); the function name is followed by `( )` as dtrace
//! prints it.

use crate::printf::{Count, Format};
use std::fmt;

/// What kind of D type an argument has, as far as printf cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// Any C integer type (char, short, int, long, long long, enums).
    Int,
    /// A pointer.
    Pointer,
    /// `string` or a `char` array.
    String,
    /// float/double/long double.
    Float,
    /// An aggregation (`@a`).
    Aggregation,
    /// Anything else (structs, unions, void, ...).
    Other,
}

/// An argument's type: its kind and its D type name for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgType {
    pub kind: ArgKind,
    /// The type's name as dtrace prints it, e.g. `int`, `char *`, `string`, `void`.
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

/// Which check failed; each maps to a dtrace `D_*` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintfErrorKind {
    /// `D_PRINTF_FMT_EMPTY`
    FmtEmpty,
    /// The format cannot be parsed (unknown conversion, repeated `.` or `*`).
    /// dtrace reports these without a specific tag; we use `D_PRINTF_FMT`.
    FmtInvalid,
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

/// A failed printf check: which, and dtrace's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintfError {
    pub kind: PrintfErrorKind,
    pub message: String,
}

impl PrintfError {
    /// The dtrace error tag, e.g. `D_PRINTF_ARG_TYPE`.
    pub fn tag(&self) -> &'static str {
        match self.kind {
            PrintfErrorKind::FmtEmpty => "D_PRINTF_FMT_EMPTY",
            PrintfErrorKind::FmtInvalid => "D_PRINTF_FMT",
            PrintfErrorKind::ArgProto => "D_PRINTF_ARG_PROTO",
            PrintfErrorKind::ArgType => "D_PRINTF_ARG_TYPE",
            PrintfErrorKind::ArgExtra => "D_PRINTF_ARG_EXTRA",
            PrintfErrorKind::DynProto => "D_PRINTF_DYN_PROTO",
            PrintfErrorKind::DynType => "D_PRINTF_DYN_TYPE",
            PrintfErrorKind::AggConv => "D_PRINTF_AGG_CONV",
        }
    }
}

impl fmt::Display for PrintfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PrintfError {}

/// The prototype a conversion expects (as dtrace's message names it) and whether an
/// argument kind satisfies it.
fn prototype(ch: char) -> (&'static str, &'static [ArgKind]) {
    const INT: &[ArgKind] = &[ArgKind::Int];
    const INT_PTR: &[ArgKind] = &[ArgKind::Int, ArgKind::Pointer];
    const STR: &[ArgKind] = &[ArgKind::String];
    const NUM: &[ArgKind] = &[ArgKind::Int, ArgKind::Float];
    match ch {
        'd' | 'i' | 'c' | 'C' => ("char, short, int, long, or long long", INT),
        'u' | 'o' | 'x' | 'X' => ("char, short, int, long, or long long", INT_PTR),
        's' | 'S' => ("char [] or string (or use stringof)", STR),
        'p' | 'a' | 'A' => ("pointer or integer", INT_PTR),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => ("double", NUM),
        'Y' => ("int64_t", INT),
        _ => ("", &[]),
    }
}

/// Checks a printf format against the types of its value arguments (the
/// arguments after the format). `func` is the action name for messages
/// ("printf"). Returns the parsed format on success.
pub fn validate_printf(func: &str, format: &str, args: &[ArgType]) -> Result<Format, PrintfError> {
    check(func, format, args, false)
}

/// Checks a printf format (`printf` in messages) without returning the parse.
pub fn validate(format: &str, args: &[ArgType]) -> Result<(), PrintfError> {
    validate_printf("printf", format, args).map(|_| ())
}

/// Checks a printa format: ordinary conversions take the aggregation's key types
/// (`keys`) in order; `%@` conversions are allowed. Extra keys are allowed.
pub fn validate_printa(format: &str, keys: &[ArgType]) -> Result<Format, PrintfError> {
    check("printa", format, keys, true)
}

fn check(func: &str, format: &str, args: &[ArgType], printa: bool) -> Result<Format, PrintfError> {
    let err = |kind, message: String| PrintfError { kind, message };
    if format.is_empty() {
        return Err(err(
            PrintfErrorKind::FmtEmpty,
            format!("{func}( ) format string is empty"),
        ));
    }
    let parsed = Format::parse(format).map_err(|e| err(PrintfErrorKind::FmtInvalid, e.message))?;
    // Argument numbers in messages count the format string as argument #1.
    let mut next = 0usize;
    for c in parsed.conversions() {
        if c.ch == '%' {
            continue;
        }
        let name = c.name();
        for (slot, text) in [(c.width, "*"), (c.prec, ".*")] {
            if slot != Some(Count::Star) {
                continue;
            }
            let Some(a) = args.get(next) else {
                return Err(err(
                    PrintfErrorKind::DynProto,
                    format!(
                        "{func}( ) prototype mismatch: conversion #{} (%{name}) is missing a corresponding \"{text}\" argument",
                        c.number
                    ),
                ));
            };
            if a.kind != ArgKind::Int {
                return Err(err(
                    PrintfErrorKind::DynType,
                    format!(
                        "{func}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: % {text} {name}\n\t prototype: int\n\t  argument: {}",
                        next + 2,
                        c.number,
                        a.name
                    ),
                ));
            }
            next += 1;
        }
        if c.agg {
            if !printa {
                return Err(err(
                    PrintfErrorKind::AggConv,
                    format!(
                        "%@ conversion requires an aggregation and is not for use with {func}( )"
                    ),
                ));
            }
            continue;
        }
        let Some(a) = args.get(next) else {
            return Err(err(
                PrintfErrorKind::ArgProto,
                format!(
                    "{func}( ) prototype mismatch: conversion #{} (%{name}) is missing a corresponding value argument",
                    c.number
                ),
            ));
        };
        let (proto, ok) = prototype(c.ch);
        if !ok.contains(&a.kind) {
            return Err(err(
                PrintfErrorKind::ArgType,
                format!(
                    "{func}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: %{name}\n\t prototype: {proto}\n\t  argument: {}",
                    next + 2,
                    c.number,
                    a.name
                ),
            ));
        }
        next += 1;
    }
    if !printa && args.len() > next {
        return Err(err(
            PrintfErrorKind::ArgExtra,
            format!("{func}( ) prototype mismatch: only {next} arguments required by this format string"),
        ));
    }
    Ok(parsed)
}
