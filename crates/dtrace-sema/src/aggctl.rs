//! The actions on whole aggregations: `trunc(@a[, n])`, `clear(@a)`,
//! `normalize(@a, n)` and `denormalize(@a)`, with DTrace's prototype checks.
//! They record their argument; the consumer applies them in record order.

use crate::check::{Checker, R};
use crate::ir::*;
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// The names, for the action table in `actions.rs`.
pub(crate) const NAMES: &[&str] = &["trunc", "clear", "normalize", "denormalize"];

impl<'a> Checker<'a> {
    pub(crate) fn agg_control(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TStmt> {
        let (op, min, max, agg_tag, scalar_tag) = match func {
            "trunc" => (AggOp::Trunc, 1, 2, Tag::D_TRUNC_AGGARG, Tag::D_TRUNC_SCALAR),
            "normalize" => (
                AggOp::Normalize,
                2,
                2,
                Tag::D_NORMALIZE_AGGARG,
                Tag::D_NORMALIZE_SCALAR,
            ),
            "clear" => (AggOp::Clear, 1, 1, Tag::D_CLEAR_AGGARG, Tag::D_CLEAR_AGGARG),
            _ => (
                AggOp::Denormalize,
                1,
                1,
                Tag::D_CLEAR_AGGARG,
                Tag::D_CLEAR_AGGARG,
            ),
        };
        let n = args.len();
        if n < min || n > max {
            let expected = match (min == max, n < min) {
                (true, _) => format!("{min}"),
                (false, true) => format!("at least {min}"),
                (false, false) => format!("at most {max}"),
            };
            return Err(Diagnostic::new(
                Tag::D_PROTO_LEN,
                span,
                format!(
                    "{func}( ) prototype mismatch: {n} arg{}passed, {expected} expected",
                    if n == 1 { " " } else { "s " }
                ),
            ));
        }
        let first = &args[0];
        let K::Agg(name) = &first.kind else {
            let what = match self.expr(first) {
                Ok(t) => self.name(&t.ty),
                Err(_) => "expression".to_string(),
            };
            return Err(Diagnostic::new(
                agg_tag,
                first.span,
                format!(
                    "{func}( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: {what}"
                ),
            ));
        };
        let Some(agg) = self.aggs.get(name).copied() else {
            return Err(Diagnostic::new(
                Tag::D_IDENT_UNDEF,
                first.span,
                format!("failed to resolve @{name}: Unknown variable name"),
            ));
        };
        let arg = match args.get(1) {
            Some(a) => {
                let t = self.expr(a)?;
                if !t.ty.is_int() {
                    return Err(Diagnostic::new(
                        scalar_tag,
                        a.span,
                        format!("{func}( ) argument #2 must be of scalar type"),
                    ));
                }
                Some(crate::expr::convert(t, self.b.int64_t))
            }
            None => None,
        };
        Ok(TStmt::AggControl { op, agg, arg })
    }
}

/// Statements that name an aggregation without applying an aggregating function
/// (`@a;`, `@a[1];`), and aggregations indexed twice (`@a[0][1] = ...`).
pub(crate) fn misuse(e: &ast::Expr) -> Option<Diagnostic> {
    fn agg_name(e: &ast::Expr) -> Option<&str> {
        match &e.kind {
            K::Agg(n) => Some(n),
            K::Index { base, .. } => match &base.kind {
                K::Agg(n) => Some(n),
                _ => None,
            },
            _ => None,
        }
    }
    let mdim = |e: &ast::Expr| -> Option<Diagnostic> {
        let K::Index { base, .. } = &e.kind else {
            return None;
        };
        let name = match &base.kind {
            K::Index { base: inner, .. } => match &inner.kind {
                K::Agg(n) => n,
                _ => return None,
            },
            _ => return None,
        };
        Some(Diagnostic::new(
            Tag::D_AGG_MDIM,
            e.span,
            format!("improper attempt to reference @{name} as a multi-dimensional array"),
        ))
    };
    match &e.kind {
        K::Assign { lhs, .. } => mdim(lhs),
        _ => mdim(e).or_else(|| {
            agg_name(e).map(|name| {
                Diagnostic::new(
                    Tag::D_AGG_NULL,
                    e.span,
                    format!("expression has null effect: @{name}"),
                )
            })
        }),
    }
}

/// printa()'s format takes the keys with its ordinary conversions (and `*`
/// widths) and the values with `%@` ones: an ordinary conversion past the last
/// key has no value (D_PRINTF_ARG_PROTO). Returns that conversion's number and
/// text.
pub(crate) fn printa_missing_key(fmt: &str, nkeys: usize) -> Option<(usize, String)> {
    let b = fmt.as_bytes();
    let (mut i, mut number, mut used) = (0, 0, 0);
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            i += 2;
            continue;
        }
        let start = i + 1;
        i += 1;
        number += 1;
        let mut value = false;
        let mut stars = 0;
        while let Some(&c) = b.get(i) {
            match c {
                b'@' => value = true,
                b'*' => stars += 1,
                b'-' | b'+' | b' ' | b'#' | b'0'..=b'9' | b'.' | b'\'' | b'?' => {}
                b'h' | b'l' | b'L' | b'z' | b'j' | b't' => {}
                _ => break,
            }
            i += 1;
        }
        i += 1;
        used += stars;
        if !value {
            used += 1;
        }
        if used > nkeys {
            let text = String::from_utf8_lossy(b.get(start..i.min(b.len())).unwrap_or(&[]));
            return Some((number, text.into_owned()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::printa_missing_key;

    #[test]
    fn printa_formats_take_keys_then_values() {
        assert_eq!(printa_missing_key("%d %@d\n", 1), None);
        assert_eq!(printa_missing_key("%8@d %@u %%\n", 0), None);
        assert_eq!(
            printa_missing_key("%d %@d\n", 0),
            Some((1, "d".to_string()))
        );
        // A `*` width takes a key too.
        assert_eq!(
            printa_missing_key("%s %*d %@d", 2),
            Some((2, "*d".to_string()))
        );
    }
}
