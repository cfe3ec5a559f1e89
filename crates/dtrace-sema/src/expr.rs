//! Typing of expressions: names, operators with C's conversions, constant folding.

use crate::check::{Checker, MAX_DEPTH, R};
use crate::ir::*;
use crate::types::normalize;
use dtrace_syntax::ast::{self, BinOp, ExprKind as K, UnOp};
use dtrace_syntax::{Diagnostic, Span, Tag};

pub(crate) fn mk(kind: TExprKind, ty: Ty, span: Span) -> TExpr {
    TExpr { kind, ty, span }
}

/// Convert `e` to type `to` (integers: truncate/extend; strings: widen capacity).
pub(crate) fn convert(e: TExpr, to: Ty) -> TExpr {
    if let TExprKind::Int(v) = e.kind {
        return mk(TExprKind::Int(normalize(v, &to)), to, e.span);
    }
    if e.ty.same_repr(&to) && (e.ty.size() == to.size() || !to.is_str()) {
        let mut e = e;
        e.ty = to;
        return e;
    }
    let span = e.span;
    mk(TExprKind::Convert(Box::new(e)), to, span)
}

/// An arithmetic operand as its 64-bit value of type `wide`, for an operation
/// of type `ty`: the unnarrowed result of an inner operation of that same type
/// (see [`is_wide_arith`]), so a chain of `int` operations keeps its 64-bit
/// intermediate values as DTrace's does; otherwise the operand's value, which
/// is already its 64-bit extension (a result of another type is narrowed to it
/// first, as C converts it).
fn widen_operand(e: TExpr, wide: Ty, ty: Ty) -> TExpr {
    if is_wide_arith(&e) && e.ty.same_repr(&ty) {
        if let TExprKind::Convert(inner) = e.kind {
            let mut inner = *inner;
            inner.ty = wide;
            return inner;
        }
    }
    convert(e, wide)
}

/// Whether `e` is an arithmetic result narrowed from its 64-bit computation
/// (what [`Checker::arith`] makes for operands narrower than 64 bits).
pub(crate) fn is_wide_arith(e: &TExpr) -> bool {
    match &e.kind {
        TExprKind::Convert(inner) => {
            matches!(inner.kind, TExprKind::Arith { .. })
                && inner.ty.size() == 8
                && e.ty.is_int()
                && e.ty.size() < 8
        }
        _ => false,
    }
}

/// The constant value of a folded integer expression.
pub(crate) fn const_value(e: &TExpr) -> Option<i64> {
    match e.kind {
        TExprKind::Int(v) => Some(v),
        _ => None,
    }
}

fn fold(op: ArithOp, a: i64, b: i64, ty: &Ty) -> Option<i64> {
    let signed = ty.signed();
    let v = match op {
        ArithOp::Add => a.wrapping_add(b),
        ArithOp::Sub => a.wrapping_sub(b),
        ArithOp::Mul => a.wrapping_mul(b),
        ArithOp::Div if signed => a.checked_div(b).unwrap_or(a),
        ArithOp::Div => (a as u64).checked_div(b as u64)? as i64,
        // DTrace's signed remainder is negative when the operands' signs differ.
        ArithOp::Mod if signed => {
            let r = a.checked_rem(b).unwrap_or(0);
            if b < 0 {
                r.wrapping_neg()
            } else {
                r
            }
        }
        ArithOp::Mod => (a as u64).checked_rem(b as u64)? as i64,
        ArithOp::Shl => a.wrapping_shl((b & 63) as u32),
        ArithOp::Shr if signed => a.wrapping_shr((b & 63) as u32),
        ArithOp::Shr => ((a as u64) >> (b & 63)) as i64,
        ArithOp::And => a & b,
        ArithOp::Or => a | b,
        ArithOp::Xor => a ^ b,
    };
    Some(normalize(v, ty))
}

/// The arithmetic operator of a binary operator (also of its compound assignment).
pub(crate) fn arith_op(op: BinOp) -> Option<ArithOp> {
    Some(match op {
        BinOp::Add => ArithOp::Add,
        BinOp::Sub => ArithOp::Sub,
        BinOp::Mul => ArithOp::Mul,
        BinOp::Div => ArithOp::Div,
        BinOp::Mod => ArithOp::Mod,
        BinOp::Shl => ArithOp::Shl,
        BinOp::Shr => ArithOp::Shr,
        BinOp::BitAnd => ArithOp::And,
        BinOp::BitOr => ArithOp::Or,
        BinOp::BitXor => ArithOp::Xor,
        _ => return None,
    })
}

fn cmp_op(op: BinOp) -> Option<CmpOp> {
    Some(match op {
        BinOp::Lt => CmpOp::Lt,
        BinOp::Le => CmpOp::Le,
        BinOp::Gt => CmpOp::Gt,
        BinOp::Ge => CmpOp::Ge,
        BinOp::Eq => CmpOp::Eq,
        BinOp::Ne => CmpOp::Ne,
        _ => return None,
    })
}

impl<'a> Checker<'a> {
    pub(crate) fn expr(&mut self, e: &ast::Expr) -> R<TExpr> {
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH {
            Err(Diagnostic::new(
                Tag::D_NOREG,
                e.span,
                "Insufficient registers to generate code",
            ))
        } else {
            self.expr_inner(e)
        };
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, e: &ast::Expr) -> R<TExpr> {
        let span = e.span;
        match &e.kind {
            K::Int {
                value,
                suffix,
                radix,
            } => {
                let ty = self.b.literal(*value, *suffix, *radix);
                Ok(mk(TExprKind::Int(normalize(*value as i64, &ty)), ty, span))
            }
            // "Character constants are assigned the type int" (Dynamic Tracing
            // Guide, "Constants"): the character's value; a constant of several
            // characters too large for an int is, like an integer, a long.
            K::Char(v) => {
                let ty = if i32::try_from(*v).is_ok() {
                    self.b.int
                } else {
                    self.b.long
                };
                Ok(mk(TExprKind::Int(*v), ty, span))
            }
            K::Str(s) => {
                let (id, cap) = self.intern(s);
                Ok(mk(TExprKind::Str(id), Ty::Str { cap }, span))
            }
            K::Ident(name) => self.ident(name, span),
            // A thread- or clause-local variable read before any assignment is
            // declared by that reference (D creates `self->` and `this->` variables
            // on first use) as `int64_t`, and reads as 0 until stored: the idiom
            // `/self->ts == 0/ { self->ts = timestamp; }`.
            K::SelfVar(name) => {
                let id = match self.thread.get(name) {
                    Some(id) => *id,
                    None => self.new_thread(name, self.b.int64_t, span),
                };
                let ty = self.out.thread_vars[id as usize].ty;
                Ok(mk(TExprKind::Var(VarRef::Thread(id)), ty, span))
            }
            K::ThisVar(name) => {
                let id = match self.clause.get(name) {
                    Some(id) => *id,
                    None => self.new_clause(name, self.b.int64_t, span),
                };
                let ty = self.out.clause_vars[id as usize].ty;
                Ok(mk(TExprKind::Var(VarRef::Clause(id)), ty, span))
            }
            K::Agg(name) => Err(Diagnostic::new(
                Tag::D_AGG_SCALAR,
                span,
                format!("aggregation @{name} may not be used in an expression"),
            )),
            K::Call { func, args } if func.starts_with(crate::intrinsic::PREFIX) => {
                self.intrinsic(func, args, span)
            }
            K::Call { func, args } if func == "speculation" => {
                self.check_proto(func, args, span)?;
                self.speculation_call(args, span)
            }
            K::Call { func, args } if crate::strfn::lookup(func).is_some() => {
                self.check_proto(func, args, span)?;
                match crate::strfn::lookup(func) {
                    Some(f) => self.string_subr(func, f, args, span),
                    None => Err(undefined(func, span)),
                }
            }
            K::Call { func, args } if crate::subr::is_subr(func) => {
                self.check_proto(func, args, span)?;
                self.misc_subr(func, args, span)
            }
            K::Call { func, args } if crate::memsubr::is_mem_subr(func) => {
                self.check_proto(func, args, span)?;
                self.mem_subr(func, args, span)
            }
            K::Call { func, args } => {
                self.check_proto(func, args, span)?;
                if let Some(r) = self.action_in_expr(func, args, span) {
                    r
                } else if crate::proto::is_void_action(func) {
                    Err(Diagnostic::new(
                        Tag::D_CG_EXPR,
                        span,
                        format!(
                            "{func}( ) may not be called from a D expression (D program context required)"
                        ),
                    ))
                } else {
                    Err(crate::proto::undefined(func, span))
                }
            }
            K::Index { base, index } => self.index_read(base, index, span),
            K::Unary { op, expr } => self.unary(*op, expr, span),
            // The operator's own errors are placed where dtrace(1) places them.
            K::Binary { op, lhs, rhs, at } => self.binary(*op, lhs, rhs, span).map_err(|mut d| {
                if d.span == Some(span) {
                    d.line = dtrace_syntax::LinePlace::At(*at);
                }
                d
            }),
            K::Assign { op, lhs, rhs } => self.assign(*op, lhs, rhs, span),
            K::Ternary { cond, then, els } => self.ternary(cond, then, els, span),
            K::Cast { ty, expr } => self.cast(ty, expr, span),
            K::SizeofType(tn) => self.sizeof_type(tn, span),
            K::SizeofExpr(x) => self.sizeof_expr(x, span),
            K::Member { base, name, arrow } => self.member(base, name, *arrow, span),
            K::Offsetof { ty, member } => self.offsetof(ty, member, span),
            K::Stringof(x) => self.stringof(x, span),
            K::Xlate { .. } => self.xlate_whole(e, false, span),
        }
    }

    fn ident(&mut self, name: &str, span: Span) -> R<TExpr> {
        if let Some(v) = self.xlate_input(name, span) {
            return Ok(v);
        }
        if name == "curthread" {
            let ty = self.curthread_ty();
            return Ok(mk(TExprKind::Builtin(Builtin::Curthread), ty, span));
        }
        if let Some((b, ty)) = self.builtin(name) {
            if let Builtin::Arg(n) = b {
                self.args_used |= 1 << n;
            }
            return Ok(mk(TExprKind::Builtin(b), ty, span));
        }
        if let Some(r) = self.inline_use(name, span) {
            return r;
        }
        if let Some(id) = self.globals.get(name) {
            let ty = self.out.globals[*id as usize].ty;
            return Ok(mk(TExprKind::Var(VarRef::Global(*id)), ty, span));
        }
        if name.contains('`') {
            return self.kernel_symbol(name, span);
        }
        if name == "NULL" {
            // D's null pointer constant: libdtrace defines it as an inline whose
            // value is the integer constant 0, and an inline of a constant is
            // that constant (an `int`: `sizeof (NULL)` is 4). Integer constant 0
            // converts to any pointer type.
            return Ok(mk(TExprKind::Int(0), self.b.int, span));
        }
        if let Some(&(_, v)) = self.enum_pending.iter().rev().find(|(n, _)| n == name) {
            return Ok(mk(TExprKind::Int(v), self.b.int, span));
        }
        let constant = match self.types.lookup_constant(name) {
            Some(c) => Some(c),
            None => self.types.enum_constant(None, name),
        };
        if let Some((id, v)) = constant {
            let ty = match self.value_ty(id) {
                t @ Ty::Int { .. } => t,
                _ => self.b.int,
            };
            return Ok(mk(TExprKind::Int(normalize(v, &ty)), ty, span));
        }
        // An array's name alone (libdtrace names the kind of identifier).
        let kind = if self.arrays.contains_key(name) {
            Some("associative array")
        } else if matches!(name, "args" | "uregs") {
            Some("array")
        } else {
            None
        };
        if let Some(kind) = kind {
            return Err(Diagnostic::new(
                Tag::D_IDENT_BADREF,
                span,
                format!("{kind} '{name}' may not be referenced as scalar"),
            ));
        }
        Err(undefined(name, span))
    }

    /// A built-in variable and its type.
    pub(crate) fn builtin(&self, name: &str) -> Option<(Builtin, Ty)> {
        let b = &self.b;
        let probe_str = |f: fn(&crate::ProbeInfo) -> usize| {
            // User-space probes may join while tracing (a library loaded
            // later), with names of any length; so may a clause's first.
            let open = self.probes.is_empty()
                || self
                    .probes
                    .iter()
                    .any(|p| matches!(p.kind, crate::ProbeKind::Uprobe { .. }));
            if open {
                return self.str_ty(self.opts.str_cap());
            }
            let len = self.probes.iter().map(f).max().unwrap_or(0) as u32 + 1;
            self.str_ty(len)
        };
        Some(match name {
            "pid" => (Builtin::Pid, b.pid_t),
            "tid" => (Builtin::Tid, b.id_t),
            "ppid" => (Builtin::Ppid, b.pid_t),
            "uid" => (Builtin::Uid, b.uid_t),
            "gid" => (Builtin::Gid, b.gid_t),
            "execname" => (Builtin::Execname, self.str_ty(16)),
            "cpu" => (Builtin::Cpu, b.processorid_t),
            "timestamp" => (Builtin::Timestamp, b.uint64_t),
            "vtimestamp" => (Builtin::Vtimestamp, b.uint64_t),
            "walltimestamp" => (Builtin::Walltimestamp, b.uint64_t),
            "probeprov" => (Builtin::Probeprov, probe_str(|p| p.provider.len())),
            "probemod" => (Builtin::Probemod, probe_str(|p| p.module.len())),
            "probefunc" => (Builtin::Probefunc, probe_str(|p| p.function.len())),
            "probename" => (Builtin::Probename, probe_str(|p| p.name.len())),
            "id" => (Builtin::Id, b.uint_t),
            "epid" => (Builtin::Epid, b.uint_t),
            "errno" => (Builtin::Errno, b.int),
            "caller" => (Builtin::Caller, b.uint64_t),
            "stackdepth" => (Builtin::Stackdepth, b.uint_t),
            "ucaller" => (Builtin::UCaller, b.uint64_t),
            "ustackdepth" => (Builtin::UStackdepth, b.uint_t),
            // Typed by `ident` (its type needs kernel BTF); here for writability.
            "curthread" => (Builtin::Curthread, b.ulong),
            _ => {
                let n = name.strip_prefix("arg")?;
                let n: u8 = n.parse().ok()?;
                if n > 9 || name.len() != 4 {
                    return None;
                }
                (Builtin::Arg(n), b.int64_t)
            }
        })
    }

    fn unary(&mut self, op: UnOp, x: &ast::Expr, span: Span) -> R<TExpr> {
        match op {
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let sym = match op {
                    UnOp::PreInc | UnOp::PostInc => "++",
                    _ => "--",
                };
                let (lv, ty) = self.lvalue_rmw(x, sym)?;
                let step = match ty {
                    Ty::Int { .. } => 1,
                    Ty::Ptr { id } => self.pointee(id).map(|t| self.elem_size(t)).unwrap_or(1),
                    _ => {
                        return Err(Diagnostic::new(
                            Tag::D_OP_SCALAR,
                            span,
                            format!("operator {sym} requires operand of scalar type"),
                        ))
                    }
                };
                let inc = matches!(op, UnOp::PreInc | UnOp::PostInc);
                let post = matches!(op, UnOp::PostInc | UnOp::PostDec);
                let step = step.min(i32::MAX as u64) as u32;
                Ok(mk(
                    TExprKind::IncDec {
                        lv,
                        inc,
                        post,
                        step,
                    },
                    ty,
                    span,
                ))
            }
            UnOp::Neg | UnOp::Plus => {
                let v = self.expr(x)?;
                let sym = if op == UnOp::Neg { "-" } else { "+" };
                if !v.ty.is_int() {
                    return Err(Diagnostic::new(
                        Tag::D_OP_ARITH,
                        span,
                        format!("operator {sym} requires an operand of arithmetic type"),
                    ));
                }
                let ty = self.b.promote(v.ty);
                // A folded constant keeps its 64-bit value when negated; an
                // unsigned one is then cut to its type's width (as libdtrace).
                if let (Some(c), UnOp::Neg) = (const_value(&v), op) {
                    let n = c.wrapping_neg();
                    let n = if ty.signed() { n } else { normalize(n, &ty) };
                    return Ok(mk(TExprKind::Int(n), ty, span));
                }
                let v = convert(v, ty);
                if op == UnOp::Plus {
                    return Ok(v);
                }
                Ok(mk(TExprKind::Neg(Box::new(v)), ty, span))
            }
            UnOp::BitNot => {
                let v = self.expr(x)?;
                if !v.ty.is_int() {
                    return Err(Diagnostic::new(
                        Tag::D_OP_INT,
                        span,
                        "operator ~ requires an operand of integral type",
                    ));
                }
                let ty = self.b.promote(v.ty);
                let v = convert(v, ty);
                if let Some(c) = const_value(&v) {
                    return Ok(mk(TExprKind::Int(normalize(!c, &ty)), ty, span));
                }
                Ok(mk(TExprKind::BitNot(Box::new(v)), ty, span))
            }
            UnOp::Not => {
                let v = self.expr(x)?;
                let v = self.testable(v);
                if !v.ty.is_testable() {
                    return Err(Diagnostic::new(
                        Tag::D_OP_SCALAR,
                        span,
                        "operator ! requires an operand of scalar type",
                    ));
                }
                if let Some(c) = const_value(&v) {
                    return Ok(mk(TExprKind::Int((c == 0) as i64), self.b.int, span));
                }
                Ok(mk(TExprKind::LogNot(Box::new(v)), self.b.int, span))
            }
            UnOp::Deref => self.deref(x, span),
            UnOp::AddrOf => self.addr_of(x, span),
        }
    }

    /// A binary operator's left operand: evaluated first, its subexpressions'
    /// temporaries are free again before the right operand starts, so it does not
    /// deepen the nesting that [`MAX_DEPTH`] bounds (`a + b + c + ...` stays shallow).
    fn left_operand(&mut self, l: &ast::Expr) -> R<TExpr> {
        self.depth = self.depth.saturating_sub(1);
        let r = self.expr(l);
        self.depth += 1;
        r
    }

    fn binary(&mut self, op: BinOp, l: &ast::Expr, r: &ast::Expr, span: Span) -> R<TExpr> {
        let sym = op.symbol();
        if op == BinOp::Comma {
            let a = self.left_operand(l)?;
            let b = self.expr(r)?;
            let ty = b.ty;
            return Ok(mk(TExprKind::Comma(Box::new(a), Box::new(b)), ty, span));
        }
        let a = self.left_operand(l)?;
        let b = self.expr(r)?;
        if let Some(aop) = arith_op(op) {
            return self.arith(aop, sym, a, b, span);
        }
        if let Some(cop) = cmp_op(op) {
            // A string against the null pointer constant compares with the NULL
            // string (what strtok at the end, strchr, strrchr and strstr without
            // a match return).
            let (a, b) = self.null_strings(a, b);
            // A string against a char array or pointer compares strings.
            let (a, b) = if a.ty.is_str() || b.ty.is_str() {
                let a = self.string_of(a).unwrap_or_else(|e| e);
                let b = self.string_of(b).unwrap_or_else(|e| e);
                (a, b)
            } else {
                (self.decay(a), self.decay(b))
            };
            if (a.ty.is_ptr() || b.ty.is_ptr()) && a.ty.is_int_or_ptr() && b.ty.is_int_or_ptr() {
                let u = self.b.ulong;
                let a = if a.ty.is_ptr() {
                    crate::ptr::retype(a, u)
                } else {
                    convert(a, u)
                };
                let b = if b.ty.is_ptr() {
                    crate::ptr::retype(b, u)
                } else {
                    convert(b, u)
                };
                let k = TExprKind::Cmp {
                    op: cop,
                    lhs: Box::new(a),
                    rhs: Box::new(b),
                };
                return Ok(mk(k, self.b.int, span));
            }
            if a.ty.is_int() && b.ty.is_int() {
                let ty = self.b.usual(a.ty, b.ty);
                let (a, b) = (convert(a, ty), convert(b, ty));
                if let (Some(x), Some(y)) = (const_value(&a), const_value(&b)) {
                    let r = if ty.signed() {
                        cmp_fold(cop, x.cmp(&y))
                    } else {
                        cmp_fold(cop, (x as u64).cmp(&(y as u64)))
                    };
                    return Ok(mk(TExprKind::Int(r as i64), self.b.int, span));
                }
                let k = TExprKind::Cmp {
                    op: cop,
                    lhs: Box::new(a),
                    rhs: Box::new(b),
                };
                return Ok(mk(k, self.b.int, span));
            }
            if a.ty.is_str() && b.ty.is_str() {
                let k = TExprKind::StrCmp {
                    op: cop,
                    lhs: Box::new(a),
                    rhs: Box::new(b),
                };
                return Ok(mk(k, self.b.int, span));
            }
            return Err(self.incompat(&a.ty, sym, &b.ty, span));
        }
        // && || ^^
        let lop = match op {
            BinOp::LogAnd => LogicOp::And,
            BinOp::LogOr => LogicOp::Or,
            _ => LogicOp::Xor,
        };
        let a = self.testable(a);
        let b = self.testable(b);
        if !a.ty.is_testable() || !b.ty.is_testable() {
            return Err(Diagnostic::new(
                Tag::D_OP_SCALAR,
                span,
                format!("operator {sym} requires operands of scalar type"),
            ));
        }
        let k = TExprKind::Logic {
            op: lop,
            lhs: Box::new(a),
            rhs: Box::new(b),
        };
        Ok(mk(k, self.b.int, span))
    }

    pub(crate) fn incompat(&self, a: &Ty, sym: &str, b: &Ty, span: Span) -> Diagnostic {
        Diagnostic::new(
            Tag::D_OP_INCOMPAT,
            span,
            format!(
                "operands have incompatible types: \"{}\" {} \"{}\"",
                self.name(a),
                sym,
                self.name(b)
            ),
        )
    }

    /// Type an arithmetic/bitwise operation on already-typed operands.
    pub(crate) fn arith(
        &mut self,
        op: ArithOp,
        sym: &str,
        a: TExpr,
        b: TExpr,
        span: Span,
    ) -> R<TExpr> {
        let a = self.decay(a);
        let b = self.decay(b);
        let offsets_string = (a.ty.is_str() && b.ty.is_int()) || (a.ty.is_int() && b.ty.is_str());
        if op == ArithOp::Add && sym == "+" && offsets_string {
            // A string plus an integer offsets the string, as pointer arithmetic.
            let (s, n) = if a.ty.is_str() { (a, b) } else { (b, a) };
            let ty = s.ty;
            let k = TExprKind::StrOffset {
                s: Box::new(s),
                off: Box::new(convert(n, self.b.long)),
            };
            return Ok(mk(k, ty, span));
        }
        if a.ty.is_str() || b.ty.is_str() {
            // A compound assignment checks its operands' compatibility first;
            // bitwise operators want integers, the others arithmetic types.
            return Err(if sym.len() > 1 && sym.ends_with('=') {
                self.incompat(&a.ty, sym, &b.ty, span)
            } else if matches!(
                op,
                ArithOp::Add | ArithOp::Sub | ArithOp::Mul | ArithOp::Div
            ) {
                Diagnostic::new(
                    Tag::D_OP_ARITH,
                    span,
                    format!("operator {sym} requires operands of arithmetic type"),
                )
            } else {
                Diagnostic::new(
                    Tag::D_OP_INT,
                    span,
                    format!("operator {sym} requires operands of integral type"),
                )
            });
        }
        if a.ty.is_ptr() || b.ty.is_ptr() {
            return self.ptr_arith(op, sym, a, b, span);
        }
        if !a.ty.is_int() || !b.ty.is_int() {
            return Err(match op {
                ArithOp::Add | ArithOp::Sub => self.incompat(&a.ty, sym, &b.ty, span),
                ArithOp::Mul | ArithOp::Div => Diagnostic::new(
                    Tag::D_OP_ARITH,
                    span,
                    format!("operator {sym} requires operands of arithmetic type"),
                ),
                _ => Diagnostic::new(
                    Tag::D_OP_INT,
                    span,
                    format!("operator {sym} requires operands of integral type"),
                ),
            });
        }
        // DTrace's types: a shift has its left operand's type; other operators
        // the operand type of greater rank (size, then unsigned), without C's
        // promotion to int. The value is computed in 64 bits (operands as their
        // 64-bit values, intermediate results unnarrowed) and narrowed to that
        // type once, where the whole arithmetic expression ends.
        let shift = matches!(op, ArithOp::Shl | ArithOp::Shr);
        let ty = if shift {
            a.ty
        } else {
            self.b.dt_promote(a.ty, b.ty)
        };
        let wide = if ty.signed() {
            self.b.long
        } else {
            self.b.ulong
        };
        let a = widen_operand(a, wide, ty);
        let b = widen_operand(b, wide, ty);
        if let (Some(x), Some(y)) = (const_value(&a), const_value(&b)) {
            if matches!(op, ArithOp::Div | ArithOp::Mod) && y == 0 {
                return Err(Diagnostic::new(
                    Tag::D_DIV_ZERO,
                    span,
                    "expression contains division by zero",
                ));
            }
            // DTrace folds constants in 64 bits and keeps the result unnarrowed
            // (only a cast or a store narrows it): `(1 << 63) - 1` is INT64_MAX
            // although its operands are `int`s.
            if let Some(v) = fold(op, x, y, &wide) {
                return Ok(mk(TExprKind::Int(v), ty, span));
            }
        }
        let k = TExprKind::Arith {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        };
        let e = mk(k, wide, span);
        if ty.size() == wide.size() && ty.signed() == wide.signed() {
            let mut e = e;
            e.ty = ty;
            return Ok(e);
        }
        Ok(mk(TExprKind::Convert(Box::new(e)), ty, span))
    }

    fn ternary(&mut self, c: &ast::Expr, t: &ast::Expr, f: &ast::Expr, span: Span) -> R<TExpr> {
        let c = self.expr(c)?;
        let c = self.testable(c);
        if !c.ty.is_testable() {
            return Err(Diagnostic::new(
                Tag::D_OP_SCALAR,
                span,
                "operator ?: expression must be of scalar type",
            ));
        }
        for branch in [t, f] {
            if let ast::ExprKind::Call { func, .. } = &branch.kind {
                if crate::proto::is_void_action(func) {
                    return Err(Diagnostic::new(
                        Tag::D_OP_ACT,
                        branch.span,
                        "action cannot be used in a conditional context",
                    ));
                }
            }
        }
        let a = self.expr(t)?;
        let b = self.expr(f)?;
        let (a, b) = self.null_strings(a, b);
        let (a, b) = if a.ty.is_str() || b.ty.is_str() {
            let a = self.string_of(a).unwrap_or_else(|e| e);
            let b = self.string_of(b).unwrap_or_else(|e| e);
            (a, b)
        } else {
            (self.decay(a), self.decay(b))
        };
        let ty = match (a.ty, b.ty) {
            (Ty::Int { .. }, Ty::Int { .. }) => self.b.usual(a.ty, b.ty),
            (Ty::Str { cap: x }, Ty::Str { cap: y }) => Ty::Str { cap: x.max(y) },
            (Ty::Ptr { .. }, Ty::Ptr { .. } | Ty::Int { .. }) => a.ty,
            (Ty::Int { .. }, Ty::Ptr { .. }) => b.ty,
            _ => {
                return Err(Diagnostic::new(
                    Tag::D_OP_INCOMPAT,
                    span,
                    "operator ?: operands must have compatible types",
                ))
            }
        };
        let fit = |e: TExpr| {
            if ty.is_ptr() {
                crate::ptr::retype(e, ty)
            } else {
                convert(e, ty)
            }
        };
        let (a, b) = (fit(a), fit(b));
        if let Some(v) = const_value(&c) {
            let mut r = if v != 0 { a } else { b };
            r.span = span;
            return Ok(r);
        }
        let k = TExprKind::Ternary {
            cond: Box::new(c),
            then: Box::new(a),
            els: Box::new(b),
        };
        Ok(mk(k, ty, span))
    }
}

fn cmp_fold(op: CmpOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
    }
}

/// The NULL string (see [`TExprKind::NullStr`]).
pub(crate) fn null_string(span: Span) -> TExpr {
    mk(TExprKind::NullStr, Ty::Str { cap: 8 }, span)
}

impl<'a> Checker<'a> {
    /// A pair of operands where one is a string and the other the null pointer
    /// constant: the constant becomes the NULL string.
    fn null_strings(&self, a: TExpr, b: TExpr) -> (TExpr, TExpr) {
        match (a.ty.is_str(), b.ty.is_str()) {
            (true, false) if crate::strfn::is_null_constant(&b) => {
                let n = null_string(b.span);
                (a, n)
            }
            (false, true) if crate::strfn::is_null_constant(&a) => {
                let n = null_string(a.span);
                (n, b)
            }
            _ => (a, b),
        }
    }
}

pub(crate) fn undefined(name: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_IDENT_UNDEF,
        span,
        format!("failed to resolve {name}: Unknown variable name"),
    )
}
