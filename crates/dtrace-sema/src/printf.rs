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
    text: String,
    want: Want,
}

/// Parse a format string into the argument-consuming conversions, in order.
fn parse(fmt: &[u8]) -> Result<Vec<Conv>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut nconv = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        let start = i + 1;
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        nconv += 1;
        while matches!(
            fmt.get(i),
            Some(b'-' | b'+' | b' ' | b'#' | b'0' | b'\'' | b'?')
        ) {
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            out.push(Conv {
                text: "*".into(),
                want: Want::Int,
            });
            i += 1;
        } else {
            while fmt.get(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                out.push(Conv {
                    text: ".*".into(),
                    want: Want::Int,
                });
                i += 1;
            } else {
                while fmt.get(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
        }
        while matches!(fmt.get(i), Some(b'h' | b'l' | b'L' | b'z' | b'j' | b't')) {
            i += 1;
        }
        let Some(&c) = fmt.get(i) else {
            return Err(format!(
                "failed to parse conversion #{nconv}: format ends early"
            ));
        };
        i += 1;
        let text = String::from_utf8_lossy(&fmt[start..i]).into_owned();
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
            _ => {
                return Err(format!(
                    "failed to parse conversion #{nconv}: invalid format conversion %{text}"
                ))
            }
        };
        out.push(Conv { text, want });
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
        span: Span,
    ) -> R<()> {
        if fmt.is_empty() {
            return Err(Diagnostic::new(
                Tag::D_PRINTF_FMT_EMPTY,
                fmt_span,
                format!("{func}( ) format string is empty"),
            ));
        }
        let convs = parse(fmt).map_err(|m| {
            Diagnostic::new(Tag::D_PRINTF_ARG_FMT, fmt_span, format!("{func}( ) {m}"))
        })?;
        for (i, c) in convs.iter().enumerate() {
            // %s takes char arrays and char pointers as strings.
            if let (Want::Str, Some(slot)) = (c.want, args.get_mut(i)) {
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
                        "{func}( ) prototype mismatch: conversion #{} (%{}) is missing a corresponding value argument",
                        i + 1,
                        c.text
                    ),
                ));
            };
            let ok = match c.want {
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
                        "{func}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: %{}\n\t prototype: {}\n\t  argument: {}",
                        i + 2,
                        i + 1,
                        c.text,
                        proto,
                        self.name(&a.ty)
                    ),
                ));
            }
        }
        if args.len() > convs.len() {
            return Err(Diagnostic::new(
                Tag::D_PRINTF_ARG_EXTRA,
                args[convs.len()].span,
                format!(
                    "{func}( ) prototype mismatch: only {} arguments required by this format string",
                    convs.len()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_conversions() {
        let c = parse(b"%d %-*.*s %% %llx\n").unwrap();
        let w: Vec<Want> = c.iter().map(|c| c.want).collect();
        assert_eq!(
            w,
            vec![Want::Int, Want::Int, Want::Int, Want::Str, Want::Int]
        );
        assert!(parse(b"%q").is_err());
        assert!(parse(b"abc %").is_err());
    }
}
