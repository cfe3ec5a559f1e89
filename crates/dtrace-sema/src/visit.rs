//! Walking the typed program: the direct sub-expressions of an expression, the
//! expressions of a statement, and which D variables a clause reads and writes
//! (the variable table `dtrace -S` prints under each clause).

use crate::ir::*;

/// Calls `f` on each direct sub-expression of `e`, in evaluation order.
pub fn each_child<'e>(e: &'e TExpr, f: &mut dyn FnMut(&'e TExpr)) {
    use TExprKind as K;
    match &e.kind {
        K::Int(_)
        | K::Str(_)
        | K::Builtin(_)
        | K::Var(_)
        | K::CurCpu
        | K::URegs(_)
        | K::Speculation
        | K::NullStr
        | K::Rand
        | K::Stack { .. } => {}
        K::Inet6 { groups, .. } => groups.iter().for_each(f),
        K::ArrayGet { keys, .. } => keys.iter().for_each(f),
        K::Convert(a)
        | K::Neg(a)
        | K::BitNot(a)
        | K::LogNot(a)
        | K::Load(a)
        | K::UserWord(a)
        | K::Alloca(a)
        | K::LoadScratch(a)
        | K::ByteSwap(a)
        | K::Progenyof(a) => f(a),
        K::LoadBits { addr, .. }
        | K::KStr { addr, .. }
        | K::ScratchStr { addr, .. }
        | K::UserSym { addr, .. } => f(addr),
        K::Arith { lhs, rhs, .. }
        | K::Cmp { lhs, rhs, .. }
        | K::StrCmp { lhs, rhs, .. }
        | K::Logic { lhs, rhs, .. }
        | K::Comma(lhs, rhs) => {
            f(lhs);
            f(rhs);
        }
        K::Ternary { cond, then, els } => {
            f(cond);
            f(then);
            f(els);
        }
        K::Assign { lv, rhs, .. } => {
            lvalue_children(lv, f);
            f(rhs);
        }
        K::IncDec { lv, .. } => lvalue_children(lv, f),
        K::UserArgs { start, end } => {
            f(start);
            f(end);
        }
        K::DPath { mnt, dentry, .. } => {
            f(mnt);
            f(dentry);
        }
        K::CheckIndex { index, .. } => f(index),
        K::NotNull(p) => f(p),
        K::CopyIn { addr, size } => {
            f(addr);
            f(size);
        }
        K::CopyInStr { addr, max } => {
            f(addr);
            if let Some(m) = max {
                f(m);
            }
        }
        K::CopyInto { addr, size, dest } => {
            f(addr);
            f(size);
            f(dest);
        }
        K::Bcopy {
            src, dest, size, ..
        } => {
            f(src);
            f(dest);
            f(size);
        }
        K::CopyOut {
            src, addr, size, ..
        } => {
            f(src);
            f(addr);
            f(size);
        }
        K::StrIndex { s, index } => {
            f(s);
            f(index);
        }
        K::StrOffset { s, off } => {
            f(s);
            f(off);
        }
        K::Build { members, .. } => members.iter().for_each(|m| f(&m.value)),
        K::StrFn { args, .. } => args.iter().for_each(f),
    }
}

/// The expressions an lvalue evaluates (keys, offsets, addresses).
pub fn lvalue_children<'e>(lv: &'e LValue, f: &mut dyn FnMut(&'e TExpr)) {
    match lv {
        LValue::Var(_) => {}
        LValue::Array { keys, .. } => keys.iter().for_each(f),
        LValue::Elem { root, off, .. } => {
            if let ElemRoot::Array { keys, .. } = root {
                keys.iter().for_each(&mut *f);
            }
            f(off);
        }
        LValue::Mem(addr) => f(addr),
    }
}

/// Calls `f` on each top-level expression of `s`, entering nested statements.
pub fn each_stmt_expr<'e>(s: &'e TStmt, f: &mut dyn FnMut(&'e TExpr)) {
    match s {
        TStmt::Expr(e) => f(e),
        TStmt::If { cond, then, els } => {
            f(cond);
            for t in then.iter().chain(els) {
                each_stmt_expr(t, f);
            }
        }
        TStmt::Loop {
            cond, body, step, ..
        } => {
            cond.iter().for_each(&mut *f);
            for t in body.iter().chain(step) {
                each_stmt_expr(t, f);
            }
        }
        TStmt::Break | TStmt::Continue => {}
        TStmt::Trace { value } => f(value),
        TStmt::Print { value, addr, .. } => {
            if let Some(a) = addr {
                f(a);
            }
            f(value)
        }
        TStmt::Printf { args, .. } | TStmt::FormatAction { args, .. } => args.iter().for_each(f),
        TStmt::Exit { status } => f(status),
        TStmt::Printa { .. } | TStmt::Ftruncate => {}
        TStmt::AggControl { arg, .. } => arg.iter().for_each(f),
        TStmt::Speculate { id } | TStmt::CommitDiscard { id, .. } => f(id),
        TStmt::Tracemem { addr, dynsize, .. } => {
            f(addr);
            dynsize.iter().for_each(f);
        }
        TStmt::Setopt { name, value } => {
            f(name);
            value.iter().for_each(f);
        }
        TStmt::Symbol { addr, .. } => f(addr),
        TStmt::Raise { sig } => f(sig),
        TStmt::Chill { ns } => f(ns),
        TStmt::AggUpdate {
            keys, value, incr, ..
        } => {
            keys.iter().for_each(&mut *f);
            value.iter().for_each(&mut *f);
            incr.iter().for_each(f);
        }
    }
}

/// A D variable a clause names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsedVar {
    Scalar(VarRef),
    /// An associative array (index into [`TypedProgram::arrays`]).
    Array(u32),
}

/// How a clause uses one variable: read (or referenced in place, as a member or
/// element store does) and/or assigned as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarUse {
    pub var: UsedVar,
    pub read: bool,
    pub written: bool,
}

/// The variables clause `c` uses, in order of first use (predicate first).
pub fn clause_var_uses(c: &TClause) -> Vec<VarUse> {
    let mut uses: Vec<VarUse> = Vec::new();
    let mut note =
        |var: UsedVar, read: bool, written: bool| match uses.iter_mut().find(|u| u.var == var) {
            Some(u) => {
                u.read |= read;
                u.written |= written;
            }
            None => uses.push(VarUse { var, read, written }),
        };
    fn walk(e: &TExpr, note: &mut dyn FnMut(UsedVar, bool, bool)) {
        match &e.kind {
            TExprKind::Var(v) if v.is_real() => note(UsedVar::Scalar(*v), true, false),
            TExprKind::ArrayGet { array, .. } => note(UsedVar::Array(*array), true, false),
            TExprKind::Assign { lv, op, .. } => lvalue_use(lv, op.is_some(), note),
            TExprKind::IncDec { lv, .. } => lvalue_use(lv, true, note),
            _ => {}
        }
        each_child(e, &mut |c| walk(c, note));
    }
    fn lvalue_use(lv: &LValue, reads: bool, note: &mut dyn FnMut(UsedVar, bool, bool)) {
        match lv {
            LValue::Var(v) => note(UsedVar::Scalar(*v), reads, true),
            LValue::Array { array, .. } => note(UsedVar::Array(*array), reads, true),
            // A store into part of a variable references the variable in place.
            LValue::Elem { root, .. } => match root {
                ElemRoot::Var(v) => note(UsedVar::Scalar(*v), true, false),
                ElemRoot::Array { array, .. } => note(UsedVar::Array(*array), true, false),
            },
            LValue::Mem(_) => {}
        }
    }
    if let Some(p) = &c.predicate {
        walk(p, &mut note);
    }
    for s in &c.body {
        each_stmt_expr(s, &mut |e| walk(e, &mut note));
    }
    uses
}

impl VarRef {
    /// False for the stand-in sema uses while typing `x op= y` (never emitted).
    fn is_real(&self) -> bool {
        !matches!(self, VarRef::Global(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_ctypes::TypeId;
    use dtrace_syntax::Span;

    fn int(kind: TExprKind) -> TExpr {
        TExpr {
            kind,
            ty: Ty::Int {
                size: 4,
                signed: true,
                id: TypeId(0),
            },
            span: Span::default(),
        }
    }

    #[test]
    fn reads_writes_and_in_place_stores() {
        let g0 = VarRef::Global(0);
        let t0 = VarRef::Thread(0);
        let body = vec![
            TStmt::Expr(int(TExprKind::Assign {
                lv: LValue::Var(g0),
                op: None,
                rhs: Box::new(int(TExprKind::Int(1))),
            })),
            TStmt::Expr(int(TExprKind::Assign {
                lv: LValue::Elem {
                    root: ElemRoot::Var(t0),
                    off: Box::new(int(TExprKind::Int(0))),
                    limit: 4,
                    bits: None,
                },
                op: None,
                rhs: Box::new(int(TExprKind::Var(VarRef::Clause(0)))),
            })),
        ];
        let c = TClause {
            index: 0,
            span: Span::default(),
            predicate: Some(int(TExprKind::ArrayGet {
                array: 2,
                keys: vec![],
            })),
            body,
            args_used: 0,
            emits_record: false,
        };
        let u = clause_var_uses(&c);
        let expect = [
            (UsedVar::Array(2), true, false),
            (UsedVar::Scalar(g0), false, true),
            (UsedVar::Scalar(t0), true, false),
            (UsedVar::Scalar(VarRef::Clause(0)), true, false),
        ];
        assert_eq!(u.len(), expect.len());
        for (got, (v, r, w)) in u.iter().zip(expect) {
            assert_eq!((got.var, got.read, got.written), (v, r, w));
        }
    }
}
