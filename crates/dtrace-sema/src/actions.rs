//! Actions (trace, printf, exit, printa) and aggregation assignments, with DTrace's
//! prototype and parameter checks.

use crate::check::{Checker, R};
use crate::expr::const_value;
use crate::ir::*;
use crate::proto::len_mismatch as proto_len;
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Span, Tag};

const ACTIONS: &[&str] = &[
    "trace",
    "print",
    "printf",
    "exit",
    "printa",
    // Speculations (speculation.rs).
    "speculate",
    "commit",
    "discard",
];
const AGGFUNCS: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "stddev",
    "quantize",
    "lquantize",
    "llquantize",
];

pub(crate) fn is_action(name: &str) -> bool {
    ACTIONS.contains(&name)
        || crate::aggctl::NAMES.contains(&name)
        || crate::actions_ctl::CONTROL_ACTIONS.contains(&name)
}

pub(crate) fn is_aggfunc(name: &str) -> bool {
    AGGFUNCS.contains(&name)
}

impl<'a> Checker<'a> {
    fn proto_arg(&self, func: &str, n: usize, proto: &str, arg: &TExpr) -> Diagnostic {
        crate::proto::arg_mismatch(func, n, proto, &self.name(&arg.ty), arg.span)
    }

    pub(crate) fn action(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TStmt> {
        self.check_proto(func, args, span)?;
        self.action_args += 1;
        let r = self.action_inner(func, args, span);
        self.action_args -= 1;
        r
    }

    fn action_inner(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TStmt> {
        if crate::actions_ctl::CONTROL_ACTIONS.contains(&func) {
            return self.control_action(func, args, span);
        }
        match func {
            "trace" => {
                if args.len() != 1 {
                    return Err(proto_len(func, args.len(), "1", span));
                }
                if let ast::ExprKind::Agg(_) = &args[0].kind {
                    return Err(Diagnostic::new(
                        Tag::D_TRACE_DYN,
                        args[0].span,
                        "trace( ) may not be applied to a dynamic expression",
                    ));
                }
                let v = match self.void_call(&args[0])? {
                    Some(v) => v,
                    None => self.expr(&args[0])?,
                };
                if matches!(v.ty, Ty::Void) {
                    return Err(Diagnostic::new(
                        Tag::D_TRACE_VOID,
                        v.span,
                        "trace( ) may not be applied to a void expression",
                    ));
                }
                if let Ty::Agg { size: 0, .. } = v.ty {
                    return Err(Diagnostic::new(
                        Tag::D_DECL_INCOMPLETE,
                        v.span,
                        format!(
                            "trace( ) cannot record an object of incomplete type {}",
                            self.name(&v.ty)
                        ),
                    ));
                }
                Ok(TStmt::Trace { value: v })
            }
            "print" => self.print_action(args, span),
            "speculate" | "commit" | "discard" => self.spec_action(func, args, span),
            "exit" => {
                if args.len() != 1 {
                    return Err(proto_len(func, args.len(), "1", span));
                }
                let v = self.expr(&args[0])?;
                if !v.ty.is_int() {
                    return Err(self.proto_arg(func, 1, "int", &v));
                }
                let v = crate::expr::convert(v, self.b.int);
                Ok(TStmt::Exit { status: v })
            }
            "printf" => {
                let Some(first) = args.first() else {
                    return Err(Diagnostic::new(
                        Tag::D_PROTO_LEN,
                        span,
                        "printf( ) prototype mismatch: 0 args passed, at least 1 expected",
                    ));
                };
                let K::Str(fmt) = &first.kind else {
                    return Err(Diagnostic::new(
                        Tag::D_PRINTF_ARG_FMT,
                        first.span,
                        "printf( ) argument #1 must be a string constant",
                    ));
                };
                let mut targs = Vec::new();
                for a in &args[1..] {
                    targs.push(self.action_arg(a)?);
                }
                let targs = self.check_printf(func, fmt, first.span, targs, span)?;
                Ok(TStmt::Printf {
                    format: crate::format::format_text(fmt),
                    args: targs,
                })
            }
            "printa" => self.printa(args, span),
            _ => self.agg_control(func, args, span),
        }
    }

    fn printa(&mut self, args: &[ast::Expr], span: Span) -> R<TStmt> {
        let mut rest = args;
        let mut format = None;
        if let Some(first) = args.first() {
            if let K::Str(f) = &first.kind {
                if f.is_empty() {
                    return Err(Diagnostic::new(
                        Tag::D_PRINTF_FMT_EMPTY,
                        first.span,
                        "printa( ) format string is empty",
                    ));
                }
                format = Some(crate::format::format_text(f));
                rest = &args[1..];
            }
        }
        if args.is_empty() {
            return Err(proto_len("printa", 0, "at least 1", span));
        }
        if rest.is_empty() {
            return Err(Diagnostic::new(
                Tag::D_PRINTA_PROTO,
                span,
                "printa( ) prototype mismatch: at least one aggregation expected",
            ));
        }
        let mut aggs = Vec::new();
        for (i, a) in rest.iter().enumerate() {
            let n = i + 1 + usize::from(format.is_some());
            let K::Agg(name) = &a.kind else {
                // The argument's type, as dtrace names it ("int"), when it has one.
                let what = match self.expr(a) {
                    Ok(t) => self.name(&t.ty),
                    Err(_) => "expression".to_string(),
                };
                return Err(Diagnostic::new(
                    Tag::D_PRINTA_AGGARG,
                    a.span,
                    format!("printa( ) argument #{n} is incompatible with prototype:\n\tprototype: aggregation\n\t argument: {what}"),
                ));
            };
            let Some(id) = self.aggs.get(name) else {
                return Err(Diagnostic::new(
                    Tag::D_IDENT_UNDEF,
                    a.span,
                    format!("failed to resolve @{name}: Unknown variable name"),
                ));
            };
            aggs.push(*id);
        }
        self.printa_keys_match(&aggs, rest)?;
        if let (Some(f), Some(first)) = (&format, aggs.first()) {
            let nkeys = self
                .out
                .aggs
                .get(*first as usize)
                .map_or(0, |a| a.keys.len());
            if let Some((n, text)) = crate::aggctl::printa_missing_key(f, nkeys) {
                return Err(Diagnostic::new(
                    Tag::D_PRINTF_ARG_PROTO,
                    span,
                    format!("printa( ) prototype mismatch: conversion #{n} (%{text}) is missing a corresponding value argument"),
                ));
            }
        }
        Ok(TStmt::Printa { format, aggs })
    }

    /// printa() of several aggregations joins their rows by key: every one must
    /// have the first one's key signature.
    fn printa_keys_match(&self, aggs: &[u32], args: &[ast::Expr]) -> R<()> {
        let info = |id: u32| self.out.aggs.get(id as usize);
        let Some(first) = aggs.first().and_then(|id| info(*id)) else {
            return Ok(());
        };
        for (i, id) in aggs.iter().enumerate().skip(1) {
            let Some(other) = info(*id) else { continue };
            let span = args.get(i).map_or(Span::default(), |a| a.span);
            let (n0, n1) = (first.keys.len(), other.keys.len());
            if n0 != n1 {
                let s = |n: usize| if n == 1 { "" } else { "s" };
                return Err(Diagnostic::new(
                    Tag::D_PRINTA_AGGKEY,
                    span,
                    format!(
                        "printa( ): @{} and @{} do not have matching key signatures: @{} has {n0} key{}, @{} has {n1} key{}",
                        first.name, other.name, first.name, s(n0), other.name, s(n1)
                    ),
                ));
            }
            for (k, (a, b)) in first.keys.iter().zip(other.keys.iter()).enumerate() {
                let same = match (a, b) {
                    (Ty::Str { .. }, Ty::Str { .. }) => true,
                    _ => self.name(a) == self.name(b),
                };
                if !same {
                    return Err(Diagnostic::new(
                        Tag::D_PRINTA_AGGPROTO,
                        span,
                        format!(
                            "printa( ): @{}[ ] key #{} is incompatible with @{}:\n{:>9} key #{}: {}\n{:>9} key #{}: {}",
                            other.name,
                            k + 1,
                            first.name,
                            format!("@{}", first.name),
                            k + 1,
                            self.name(a),
                            format!("@{}", other.name),
                            k + 1,
                            self.name(b)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn agg_assign(&mut self, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> R<TStmt> {
        let (name, index): (&String, &[ast::Expr]) = match &lhs.kind {
            K::Agg(n) => (n, &[]),
            K::Index { base, index } => match &base.kind {
                K::Agg(n) => (n, index.as_slice()),
                _ => return Err(Diagnostic::new(Tag::D_SYNTAX, lhs.span, "syntax error")),
            },
            _ => return Err(Diagnostic::new(Tag::D_SYNTAX, lhs.span, "syntax error")),
        };
        let K::Call { func, args } = &rhs.kind else {
            return Err(not_aggfunc(name, rhs.span));
        };
        if !is_aggfunc(func) {
            // An unknown function is reported as such (D_FUNC_UNDEF) first.
            if !is_action(func) {
                self.expr(rhs)?;
            }
            return Err(not_aggfunc(name, rhs.span));
        }
        self.check_proto(func, args, rhs.span)?;
        let keys = self.keys(index)?;
        let mut targs = Vec::new();
        for a in args {
            targs.push(self.expr(a)?);
        }
        let (kind, value, incr) = self.aggfunc(func, targs, rhs.span)?;
        let id = match self.aggs.get(name).copied() {
            Some(id) => {
                let prev = self.out.aggs[id as usize].clone();
                if prev.kind.name() != kind.name() {
                    return Err(Diagnostic::new(
                        Tag::D_AGG_REDEF,
                        span,
                        format!(
                            "aggregation redefined: @{name}\n\t current: @{name} = {}( )\n\tprevious: @{name} = {}( )",
                            kind.name(),
                            prev.kind.name()
                        ),
                    ));
                }
                check_same_params(&prev.kind, &kind, span)?;
                let keys_ty =
                    self.check_tuple(&format!("@{name}[ ]"), &prev.keys, &keys, lhs.span)?;
                self.out.aggs[id as usize].keys = keys_ty;
                id
            }
            None => {
                let id = self.out.aggs.len() as u32;
                self.out.aggs.push(AggInfo {
                    id,
                    name: name.clone(),
                    kind,
                    keys: keys.iter().map(|k| k.ty).collect(),
                });
                self.aggs.insert(name.clone(), id);
                self.agg_first.insert(id, span);
                id
            }
        };
        let proto = self.out.aggs[id as usize].keys.clone();
        let keys = keys
            .into_iter()
            .zip(proto.iter())
            .map(|(k, p)| match p {
                Ty::Int { .. } => crate::expr::convert(k, *p),
                _ => k,
            })
            .collect();
        Ok(TStmt::AggUpdate {
            agg: id,
            keys,
            value,
            incr,
            span,
        })
    }

    /// Check an aggregating function's arguments.
    #[allow(clippy::type_complexity)]
    fn aggfunc(
        &mut self,
        func: &str,
        args: Vec<TExpr>,
        span: Span,
    ) -> R<(AggKind, Option<TExpr>, Option<TExpr>)> {
        let n = args.len();
        let int_arg = |c: &Self, i: usize, a: &TExpr| -> R<TExpr> {
            if a.ty.is_int() || (i == 1 && a.ty.is_int_or_ptr()) {
                Ok(crate::expr::convert(a.clone(), c.b.int64_t))
            } else if i == 1 {
                Err(agg_scalar(func, a.span))
            } else {
                Err(c.proto_arg(func, i, "int64_t", a))
            }
        };
        let mut it = args.into_iter();
        match func {
            "count" => {
                if n != 0 {
                    return Err(proto_len(func, n, "0", span));
                }
                Ok((AggKind::Count, None, None))
            }
            "sum" | "avg" | "min" | "max" | "stddev" => {
                if n != 1 {
                    return Err(proto_len(func, n, "1", span));
                }
                let v = it.next().ok_or_else(|| proto_len(func, n, "1", span))?;
                let v = int_arg(self, 1, &v)?;
                let k = match func {
                    "sum" => AggKind::Sum,
                    "avg" => AggKind::Avg,
                    "min" => AggKind::Min,
                    "max" => AggKind::Max,
                    _ => AggKind::Stddev,
                };
                Ok((k, Some(v), None))
            }
            "quantize" => {
                if !(1..=2).contains(&n) {
                    return Err(proto_len(func, n, if n == 0 { "1" } else { "2" }, span));
                }
                let args: Vec<TExpr> = it.collect();
                let v = int_arg(self, 1, &args[0])?;
                let incr = match args.get(1) {
                    Some(i) => Some(int_arg(self, 2, i)?),
                    None => None,
                };
                Ok((AggKind::Quantize, Some(v), incr))
            }
            "lquantize" => {
                if !(3..=5).contains(&n) {
                    return Err(proto_len(func, n, if n < 3 { "3" } else { "5" }, span));
                }
                let args: Vec<TExpr> = it.collect();
                let v = int_arg(self, 1, &args[0])?;
                let base = const_value(&args[1]).filter(|_| args[1].ty.is_int());
                let Some(base) = base else {
                    return Err(Diagnostic::new(
                        Tag::D_LQUANT_BASETYPE,
                        args[1].span,
                        "lquantize( ) argument #1 must be an integer constant",
                    ));
                };
                if base < i32::MIN as i64 || base > i32::MAX as i64 {
                    return Err(Diagnostic::new(
                        Tag::D_LQUANT_BASEVAL,
                        args[1].span,
                        "lquantize( ) argument #1 must be a 32-bit quantity",
                    ));
                }
                let Some(limit) = const_value(&args[2]).filter(|_| args[2].ty.is_int()) else {
                    return Err(Diagnostic::new(
                        Tag::D_LQUANT_LIMTYPE,
                        args[2].span,
                        "lquantize( ) argument #2 must be an integer constant",
                    ));
                };
                if limit < i32::MIN as i64 || limit > i32::MAX as i64 {
                    return Err(Diagnostic::new(
                        Tag::D_LQUANT_LIMVAL,
                        args[2].span,
                        "lquantize( ) argument #2 must be a 32-bit quantity",
                    ));
                }
                if limit <= base {
                    return Err(Diagnostic::new(
                        Tag::D_LQUANT_MISMATCH,
                        span,
                        "lquantize( ) base (argument #1) must be less than limit (argument #2)",
                    ));
                }
                let mut step = 1;
                if let Some(s) = args.get(3) {
                    match const_value(s).filter(|v| *v > 0 && s.ty.is_int()) {
                        Some(v) => step = v,
                        None => return Err(Diagnostic::new(
                            Tag::D_LQUANT_STEPTYPE,
                            s.span,
                            "lquantize( ) argument #3 must be a non-zero positive integer constant",
                        )),
                    }
                    if step > u16::MAX as i64 {
                        return Err(Diagnostic::new(
                            Tag::D_LQUANT_STEPVAL,
                            s.span,
                            "lquantize( ) argument #3 must be a 16-bit quantity",
                        ));
                    }
                }
                let nlevels = (limit - base) / step;
                if nlevels == 0 {
                    return Err(Diagnostic::new(
                        Tag::D_LQUANT_STEPLARGE,
                        span,
                        "lquantize( ) step (argument #3) too large: must have at least one quantization level",
                    ));
                }
                if nlevels > u16::MAX as i64 {
                    return Err(Diagnostic::new(
                        Tag::D_LQUANT_STEPSMALL,
                        span,
                        "lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity",
                    ));
                }
                let incr = match args.get(4) {
                    Some(i) => Some(int_arg(self, 5, i)?),
                    None => None,
                };
                // The limit actually covered is base + nlevels * step.
                let limit = base + nlevels * step;
                Ok((AggKind::Lquantize { base, limit, step }, Some(v), incr))
            }
            _ => self.llquantize(it.collect(), span),
        }
    }

    #[allow(clippy::type_complexity)]
    fn llquantize(
        &mut self,
        args: Vec<TExpr>,
        span: Span,
    ) -> R<(AggKind, Option<TExpr>, Option<TExpr>)> {
        let n = args.len();
        if !(5..=6).contains(&n) {
            return Err(proto_len(
                "llquantize",
                n,
                if n < 5 { "5" } else { "6" },
                span,
            ));
        }
        if !args[0].ty.is_int_or_ptr() {
            return Err(agg_scalar("llquantize", args[0].span));
        }
        let v = crate::expr::convert(args[0].clone(), self.b.int64_t);
        let konst = |i: usize, tag: Tag| -> R<i64> {
            const_value(&args[i])
                .filter(|_| args[i].ty.is_int())
                .ok_or_else(|| {
                    Diagnostic::new(
                        tag,
                        args[i].span,
                        format!("llquantize( ) argument #{i} must be an integer constant"),
                    )
                })
        };
        let factor = konst(1, Tag::D_LLQUANT_FACTORTYPE)?;
        if !(2..=u16::MAX as i64).contains(&factor) {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_FACTORVAL,
                args[1].span,
                "llquantize( ) argument #1 must be an unsigned 16-bit quantity greater than or equal to 2",
            ));
        }
        let low = konst(2, Tag::D_LLQUANT_LMAGTYPE)?;
        if !(0..=u16::MAX as i64).contains(&low) {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_LMAGVAL,
                args[2].span,
                "llquantize( ) argument #2 must be an unsigned 16-bit quantity",
            ));
        }
        let high = konst(3, Tag::D_LLQUANT_HMAGTYPE)?;
        if !(0..=u16::MAX as i64).contains(&high) {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_HMAGVAL,
                args[3].span,
                "llquantize( ) argument #3 must be an unsigned 16-bit quantity",
            ));
        }
        if high < low {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_HMAGVAL,
                args[3].span,
                "llquantize( ) argument #3 (high magnitude) must be at least argument #2 (low magnitude)",
            ));
        }
        if (factor as f64).powi(high as i32 + 1) > u64::MAX as f64 {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_HMAGVAL,
                args[3].span,
                "llquantize( ) argument #3 (high magnitude) will cause overflow of 64 bits",
            ));
        }
        let nsteps = konst(4, Tag::D_LLQUANT_STEPTYPE)?;
        if nsteps <= 0 {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_STEPTYPE,
                args[4].span,
                "llquantize( ) argument #4 must be a non-zero positive integer constant",
            ));
        }
        if nsteps > u16::MAX as i64 {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_STEPVAL,
                args[4].span,
                "llquantize( ) argument #4 must be an unsigned 16-bit quantity",
            ));
        }
        if nsteps < factor && factor % nsteps != 0 {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_STEPVAL,
                args[1].span,
                "llquantize() argument #4 (steps) must evenly divide argument #1 (factor) when steps<factor",
            ));
        }
        if nsteps > factor && nsteps % factor != 0 {
            return Err(Diagnostic::new(
                Tag::D_LLQUANT_STEPVAL,
                args[1].span,
                "llquantize() argument #4 (steps) must be a multiple of argument #1 (factor) when steps>factor",
            ));
        }
        // Steps above the factor must also divide the first magnitude's range:
        // factor^2 when low is 0, factor^(low+1) otherwise.
        if nsteps > factor {
            let span_of = (factor as u128).checked_pow(if low == 0 { 2 } else { low as u32 + 1 });
            if span_of.map_or(true, |r| r % nsteps as u128 != 0) {
                let msg = if low == 0 {
                    "llquantize() argument #4 (steps) must evenly divide the square of argument #1 (factor) when steps>factor and lmag==0"
                } else {
                    "llquantize() argument #4 (steps) must evenly divide pow(argument #1 (factor), lmag (argument #2) + 1) when steps>factor and lmag==0"
                };
                return Err(Diagnostic::new(Tag::D_LLQUANT_STEPVAL, args[1].span, msg));
            }
        }
        let incr = match args.get(5) {
            Some(i) if i.ty.is_int() => Some(crate::expr::convert(i.clone(), self.b.int64_t)),
            Some(i) => return Err(self.proto_arg("llquantize", 6, "int64_t", i)),
            None => None,
        };
        Ok((
            AggKind::Llquantize {
                factor: factor as u16,
                low: low as u16,
                high: high as u16,
                nsteps: nsteps as u16,
            },
            Some(v),
            incr,
        ))
    }
}

fn not_aggfunc(name: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_AGG_FUNC,
        span,
        format!("@{name} must be assigned the result of an aggregating function"),
    )
}

fn check_same_params(prev: &AggKind, cur: &AggKind, span: Span) -> R<()> {
    match (prev, cur) {
        (
            AggKind::Lquantize {
                base: b0,
                limit: l0,
                step: s0,
            },
            AggKind::Lquantize {
                base: b1,
                limit: l1,
                step: s1,
            },
        ) => {
            let (tag, msg) = if b0 != b1 {
                (Tag::D_LQUANT_MATCHBASE, format!("lquantize( ) base (argument #1) doesn't match previous declaration: expected {b0}, found {b1}"))
            } else if l0 != l1 {
                (Tag::D_LQUANT_MATCHLIM, format!("lquantize( ) limit (argument #2) doesn't match previous declaration: expected {l0}, found {l1}"))
            } else if s0 != s1 {
                (Tag::D_LQUANT_MATCHSTEP, format!("lquantize( ) step (argument #3) doesn't match previous declaration: expected {s0}, found {s1}"))
            } else {
                return Ok(());
            };
            Err(Diagnostic::new(tag, span, msg))
        }
        (
            AggKind::Llquantize {
                factor: f0,
                low: l0,
                high: h0,
                nsteps: n0,
            },
            AggKind::Llquantize {
                factor: f1,
                low: l1,
                high: h1,
                nsteps: n1,
            },
        ) => {
            let (tag, what, old, new) = if f0 != f1 {
                (Tag::D_LLQUANT_MATCHFACTOR, "factor (argument #1)", f0, f1)
            } else if l0 != l1 {
                (Tag::D_LLQUANT_MATCHLMAG, "lmag (argument #2)", l0, l1)
            } else if h0 != h1 {
                (Tag::D_LLQUANT_MATCHHMAG, "hmag (argument #3)", h0, h1)
            } else if n0 != n1 {
                (Tag::D_LLQUANT_MATCHSTEPS, "steps (argument #4)", n0, n1)
            } else {
                return Ok(());
            };
            Err(Diagnostic::new(
                tag,
                span,
                format!("llquantize() {what} doesn't match previous declaration: expected {old}, found {new}"),
            ))
        }
        _ => Ok(()),
    }
}

/// dtrace(1)'s D_AGG_SCALAR: an aggregating function's value must be a scalar
/// (an integer or a pointer).
fn agg_scalar(func: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_AGG_SCALAR,
        span,
        format!("{func}( ) argument #1 must be of scalar type"),
    )
}
