//! printf() and printa() formats checked against their arguments' types
//! (`D_PRINTF_*`), through the one format grammar in [`crate::format`].

use crate::check::{Checker, R};
use crate::format::{self, ArgKind, ArgType, CheckKind, Format, Slot, Want};
use crate::ir::{TExpr, TExprKind, Ty};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// A printf argument as checked: a typed expression, or an aggregation named
/// where a value was expected (always a type error, reported with its name).
pub(crate) enum PrintfArg {
    Expr(TExpr),
    Agg(Span),
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

    fn arg_type(&self, a: &PrintfArg) -> ArgType {
        match a {
            PrintfArg::Agg(_) => ArgType::new(ArgKind::Aggregation, "aggregation"),
            PrintfArg::Expr(e) => {
                let kind = match e.ty {
                    Ty::Int { .. } => ArgKind::Int,
                    Ty::Ptr { .. } => ArgKind::Pointer,
                    Ty::Str { .. } => ArgKind::String,
                    Ty::Stack { .. } => ArgKind::Stack,
                    Ty::Agg { .. } if self.is_float(&e.ty) => ArgKind::Float,
                    Ty::Agg { .. } | Ty::Void => ArgKind::Other,
                };
                ArgType::new(kind, self.name(&e.ty))
            }
        }
    }

    /// Validate `func(fmt, args...)`; `fmt_span` is the format argument's span.
    /// `%s` arguments that are `char` arrays or pointers become strings. Returns
    /// the checked value arguments.
    pub(crate) fn check_printf(
        &self,
        func: &str,
        fmt: &[u8],
        fmt_span: Span,
        args: Vec<PrintfArg>,
        span: Span,
    ) -> R<Vec<TExpr>> {
        let text = crate::format::format_text(fmt);
        // Strings first: `%s` takes char arrays and char pointers as strings.
        let mut args = args;
        if let Ok(parsed) = Format::parse(&text) {
            for (slot, a) in parsed.slots().iter().zip(args.iter_mut()) {
                let Slot::Value(c) = slot else { continue };
                if c.want() != Want::Str {
                    continue;
                }
                if let PrintfArg::Expr(e) = a {
                    let placeholder = TExpr {
                        kind: TExprKind::Int(0),
                        ty: Ty::Void,
                        span: e.span,
                    };
                    let v = std::mem::replace(e, placeholder);
                    *e = self.string_of(v).unwrap_or_else(|v| v);
                }
            }
        }
        let types: Vec<ArgType> = args.iter().map(|a| self.arg_type(a)).collect();
        let arg_span = |i: usize| match args.get(i) {
            Some(PrintfArg::Expr(e)) => e.span,
            Some(PrintfArg::Agg(s)) => *s,
            None => span,
        };
        if let Err(e) = format::check(func, &text, &types, false) {
            let (tag, at) = match e.kind {
                CheckKind::FmtEmpty => (Tag::D_PRINTF_FMT_EMPTY, fmt_span),
                CheckKind::Syntax => (Tag::D_SYNTAX, fmt_span),
                CheckKind::ArgProto => (Tag::D_PRINTF_ARG_PROTO, span),
                CheckKind::ArgType => (Tag::D_PRINTF_ARG_TYPE, e.arg.map_or(span, arg_span)),
                CheckKind::ArgExtra => (Tag::D_PRINTF_ARG_EXTRA, e.arg.map_or(span, arg_span)),
                CheckKind::DynProto => (Tag::D_PRINTF_DYN_PROTO, span),
                CheckKind::DynType => (Tag::D_PRINTF_DYN_TYPE, e.arg.map_or(span, arg_span)),
                CheckKind::AggConv => (Tag::D_PRINTF_AGG_CONV, fmt_span),
            };
            return Err(Diagnostic::new(tag, at, e.message));
        }
        // %A prints a user address: record it with the current process.
        if let Ok(parsed) = Format::parse(&text) {
            for (slot, a) in parsed.slots().iter().zip(args.iter_mut()) {
                let Slot::Value(c) = slot else { continue };
                if c.ch != 'A' {
                    continue;
                }
                if let PrintfArg::Expr(e) = a {
                    if e.ty.is_int_or_ptr() {
                        let placeholder = TExpr {
                            kind: TExprKind::Int(0),
                            ty: Ty::Void,
                            span: e.span,
                        };
                        let v = std::mem::replace(e, placeholder);
                        *e = self.user_sym(crate::ir::StackKind::UAddr, v);
                    }
                }
            }
        }
        Ok(args
            .into_iter()
            .filter_map(|a| match a {
                PrintfArg::Expr(e) => Some(e),
                PrintfArg::Agg(_) => None,
            })
            .collect())
    }
}
