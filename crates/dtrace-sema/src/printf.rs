//! printf() format validation against argument types (D_PRINTF_*).

use crate::check::{Checker, R};
use crate::ir::{TExpr, Ty};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// What a conversion (or a `*` width/precision) consumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Int,
    Str,
    Stack,
    Double,
}

struct Conv {
    /// The conversion's name as DTrace shows it: length modifiers and letter (`lld`).
    name: String,
    dyn_width: bool,
    dyn_prec: bool,
    /// The `@` flag: the conversion takes an aggregation's value (printa only).
    agg: bool,
    want: Want,
}

/// A format error: DTrace reports malformed conversions as syntax errors.
fn syntax(n: u32, what: &str) -> (Tag, String) {
    (Tag::D_SYNTAX, format!("format conversion #{n} {what}"))
}

/// Parse a format string into its conversions, in order, as DTrace reads them:
/// after `%`, flags, a width (digits or `*`), a precision (`.` then digits or
/// `*`) in any order, then the conversion's name.
fn parse(fmt: &[u8]) -> Result<Vec<Conv>, (Tag, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut n = 0u32;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        n += 1;
        let (mut dot, mut dyn_width, mut dyn_prec, mut agg) = (false, false, false, false);
        let name_start;
        loop {
            let Some(&c) = fmt.get(i) else {
                return Err(syntax(n, "name expected before end of format string"));
            };
            match c {
                b'-' | b'+' | b' ' | b'#' | b'0'..=b'9' | b'\'' | b'?' => {}
                b'.' if dot => return Err(syntax(n, "has more than one '.' specified")),
                b'.' => dot = true,
                b'*' => {
                    let (seen, what) = if dot {
                        (&mut dyn_prec, "precision")
                    } else {
                        (&mut dyn_width, "width")
                    };
                    if *seen {
                        return Err(syntax(
                            n,
                            &format!("has more than one '*' specified for the output {what}"),
                        ));
                    }
                    *seen = true;
                }
                b'$' => return Err(syntax(n, "uses unsupported positional format (%n$)")),
                b'@' => agg = true,
                b'%' => return Err(syntax(n, "cannot be combined with other format flags: %%")),
                _ => {
                    name_start = i;
                    break;
                }
            }
            i += 1;
        }
        while matches!(
            fmt.get(i),
            Some(b'h' | b'l' | b'L' | b'z' | b'j' | b't' | b'w')
        ) {
            i += 1;
        }
        let Some(&c) = fmt.get(i) else {
            return Err(syntax(n, "name expected before end of format string"));
        };
        i += 1;
        let name = String::from_utf8_lossy(&fmt[name_start..i]).into_owned();
        let want = match c {
            b'd' | b'i' | b'o' | b'u' | b'x' | b'X' | b'c' | b'C' | b'p' | b'Y' | b'a' | b'A' => {
                Want::Int
            }
            b's' | b'S' => Want::Str,
            // Stacks: no D expression of ours has this type yet, so any argument
            // is a prototype mismatch with DTrace's wording. Floating values are
            // recorded as their bytes.
            b'k' => Want::Stack,
            b'e' | b'E' | b'f' | b'g' | b'G' => Want::Double,
            _ => return Err(syntax(n, &format!("is undefined: %{name}"))),
        };
        out.push(Conv {
            name,
            dyn_width,
            dyn_prec,
            agg,
            want,
        });
    }
    Ok(out)
}

impl<'a> Checker<'a> {
    /// Whether a value is a `float`, `double` or `long double` (held as bytes).
    pub(crate) fn is_float(&self, t: &Ty) -> bool {
        match t {
            Ty::Agg { id, .. } => matches!(
                self.types.kind(self.types.resolve(*id)),
                dtrace_ctypes::TypeKind::Float { .. }
            ),
            _ => false,
        }
    }

    /// Validate `printf(fmt, args...)`. `fmt_span` is the format argument's span.
    pub(crate) fn check_printf(
        &self,
        func: &str,
        fmt: &[u8],
        fmt_span: Span,
        args: &mut [TExpr],
        aggs: &[bool],
        span: Span,
    ) -> R<()> {
        if fmt.is_empty() {
            return Err(Diagnostic::new(
                Tag::D_PRINTF_FMT_EMPTY,
                fmt_span,
                format!("{func}( ) format string is empty"),
            ));
        }
        let convs = parse(fmt).map_err(|(tag, m)| Diagnostic::new(tag, fmt_span, m))?;
        let mut next = 0;
        for (k, c) in convs.iter().enumerate() {
            let k = k + 1;
            if c.agg {
                return Err(Diagnostic::new(
                    Tag::D_PRINTF_AGG_CONV,
                    fmt_span,
                    format!(
                        "%@ conversion requires an aggregation and is not for use with {func}( )"
                    ),
                ));
            }
            for (on, star) in [(c.dyn_width, "*"), (c.dyn_prec, ".*")] {
                if !on {
                    continue;
                }
                let Some(a) = args.get(next) else {
                    return Err(Diagnostic::new(
                        Tag::D_PRINTF_DYN_PROTO,
                        span,
                        format!(
                            "{func}( ) prototype mismatch: conversion #{k} (%{}) is missing a corresponding \"{star}\" argument",
                            c.name
                        ),
                    ));
                };
                if !a.ty.is_int() || aggs.get(next) == Some(&true) {
                    return Err(Diagnostic::new(
                        Tag::D_PRINTF_DYN_TYPE,
                        a.span,
                        format!(
                            "{func}( ) argument #{} is incompatible with conversion #{k} prototype:\n\tconversion: % {star} {}\n\t prototype: int\n\t  argument: {}",
                            next + 2,
                            c.name,
                            self.arg_name(a, aggs.get(next) == Some(&true))
                        ),
                    ));
                }
                next += 1;
            }
            let i = next;
            next += 1;
            // %s takes char arrays and char pointers as strings.
            if let (Want::Str, Some(slot), false) =
                (c.want, args.get_mut(i), aggs.get(i) == Some(&true))
            {
                let placeholder = TExpr {
                    kind: crate::ir::TExprKind::Int(0),
                    ty: Ty::Void,
                    span: slot.span,
                };
                let v = std::mem::replace(slot, placeholder);
                *slot = self.string_of(v).unwrap_or_else(|v| v);
            }
            let Some(a) = args.get(i) else {
                return Err(Diagnostic::new(
                    Tag::D_PRINTF_ARG_PROTO,
                    span,
                    format!(
                        "{func}( ) prototype mismatch: conversion #{k} (%{}) is missing a corresponding value argument",
                        c.name
                    ),
                ));
            };
            let is_agg = aggs.get(i) == Some(&true);
            let ok = !is_agg
                && match c.want {
                    Want::Int => matches!(a.ty, Ty::Int { .. } | Ty::Ptr { .. }),
                    Want::Str => matches!(a.ty, Ty::Str { .. }),
                    Want::Double => self.is_float(&a.ty),
                    Want::Stack => false,
                };
            if !ok {
                let proto = match c.want {
                    Want::Int => "char, short, int, long, or long long",
                    Want::Str => "char [] or string (or use stringof)",
                    Want::Stack => "stack",
                    Want::Double => "double",
                };
                return Err(Diagnostic::new(
                    Tag::D_PRINTF_ARG_TYPE,
                    a.span,
                    format!(
                        "{func}( ) argument #{} is incompatible with conversion #{k} prototype:\n\tconversion: %{}\n\t prototype: {}\n\t  argument: {}",
                        i + 2,
                        c.name,
                        proto,
                        self.arg_name(a, is_agg)
                    ),
                ));
            }
        }
        let convs_len = next;
        if args.len() > convs_len {
            return Err(Diagnostic::new(
                Tag::D_PRINTF_ARG_EXTRA,
                args[convs_len].span,
                format!(
                    "{func}( ) prototype mismatch: only {convs_len} arguments required by this format string"
                ),
            ));
        }
        Ok(())
    }
}

impl<'a> Checker<'a> {
    /// An argument's type name in messages; an aggregation is DTrace's `aggregation`.
    fn arg_name(&self, a: &TExpr, is_agg: bool) -> String {
        if is_agg {
            "aggregation".to_string()
        } else {
            self.name(&a.ty)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_conversions() {
        let c = parse(b"%d %-*.*s %% %llx\n").unwrap();
        let w: Vec<Want> = c.iter().map(|c| c.want).collect();
        assert_eq!(w, vec![Want::Int, Want::Str, Want::Int]);
        assert!(c[1].dyn_width && c[1].dyn_prec && c[2].name == "llx");
        assert!(parse(b"%q").is_err());
        assert!(parse(b"abc %").is_err());
        let e = |f: &[u8]| parse(f).err().unwrap_or((Tag::D_UNKNOWN, String::new()));
        assert_eq!(
            e(b"%.*.d").1,
            "format conversion #1 has more than one '.' specified"
        );
        assert_eq!(
            e(b"%d %1$d").1,
            "format conversion #2 uses unsupported positional format (%n$)"
        );
        assert_eq!(e(b"%-").0, Tag::D_SYNTAX);
        assert!(parse(b"%@d").is_ok_and(|c| c[0].agg));
    }
}
