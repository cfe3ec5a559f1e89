//! Elements of D scalar array variables as lvalues.
//!
//! "You may only assign values directly to D variables using their name or by
//! applying the array index operator [] to a D scalar or associative array"
//! (Dynamic Tracing Guide, "Pointers to DTrace Objects"); a scalar array must
//! be declared first ("Array Declarations and Storage"). So `int a[5];` then
//! `a[2] = 7`, `a[i]++` and `m[1][2] += 3` store into the variable's own storage.

use crate::check::{Checker, R};
use crate::expr::{convert, mk};
use crate::ir::*;
use dtrace_ctypes::TypeId;
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Tag};

impl<'a> Checker<'a> {
    /// `e` as an element of a global or clause-local scalar array variable whose
    /// element is an integer or a pointer: its lvalue and type. `None` when `e`
    /// is anything else (an associative array, kernel memory, ...).
    pub(crate) fn scalar_array_elem(&mut self, e: &ast::Expr) -> R<Option<(LValue, Ty)>> {
        if !matches!(e.kind, K::Index { .. }) {
            return Ok(None);
        }
        let Some((var, off, elem)) = self.elem_place(e)? else {
            return Ok(None);
        };
        let ty = self.value_ty(elem);
        if !matches!(ty, Ty::Int { .. } | Ty::Ptr { .. }) {
            return Ok(None);
        }
        let var_size = match var {
            VarRef::Global(i) => self.out.globals.get(i as usize),
            VarRef::Clause(i) => self.out.clause_vars.get(i as usize),
            VarRef::Thread(_) => None,
        }
        .map(|v| v.ty.size())
        .unwrap_or(0);
        let Some(limit) = var_size.checked_sub(ty.size()) else {
            return Ok(None);
        };
        let lv = LValue::Elem {
            var,
            off: Box::new(off),
            limit,
        };
        Ok(Some((lv, ty)))
    }

    /// The variable, byte offset (a `long` expression) and element type of an
    /// array variable or an element of one.
    fn elem_place(&mut self, e: &ast::Expr) -> R<Option<(VarRef, TExpr, TypeId)>> {
        let (var, ty) = match &e.kind {
            K::Ident(name) => match self.globals.get(name) {
                Some(&i) => (VarRef::Global(i), self.out.globals[i as usize].ty),
                None => return Ok(None),
            },
            K::ThisVar(name) => match self.clause.get(name) {
                Some(&i) => (VarRef::Clause(i), self.out.clause_vars[i as usize].ty),
                None => return Ok(None),
            },
            K::Index { base, index } => {
                let Some((var, off, arr)) = self.elem_place(base)? else {
                    return Ok(None);
                };
                let Some((elem, _)) = self.array_elem(arr) else {
                    return Ok(None);
                };
                let [i] = index.as_slice() else {
                    return Err(Diagnostic::new(
                        Tag::D_ARR_BADREF,
                        e.span,
                        "arrays and pointers take exactly one index",
                    ));
                };
                let iv = self.expr(i)?;
                if !iv.ty.is_int() {
                    return Err(Diagnostic::new(
                        Tag::D_OP_INT,
                        i.span,
                        "array index must be of integral type",
                    ));
                }
                let long = self.b.long;
                let size = mk(TExprKind::Int(self.elem_size(elem) as i64), long, i.span);
                let scaled = self.arith(ArithOp::Mul, "*", convert(iv, long), size, i.span)?;
                let off = self.arith(ArithOp::Add, "+", off, scaled, e.span)?;
                return Ok(Some((var, off, elem)));
            }
            _ => return Ok(None),
        };
        match ty {
            Ty::Agg { id, .. } if self.array_elem(id).is_some() => {
                let zero = mk(TExprKind::Int(0), self.b.long, e.span);
                Ok(Some((var, zero, id)))
            }
            _ => Ok(None),
        }
    }
}
