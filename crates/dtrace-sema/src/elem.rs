//! Places inside D variables as lvalues: elements of D scalar arrays and members
//! of D structs and unions.
//!
//! "You may only assign values directly to D variables using their name or by
//! applying the array index operator [] to a D scalar or associative array"
//! (Dynamic Tracing Guide, "Pointers to DTrace Objects"); a scalar array must
//! be declared first ("Array Declarations and Storage"). So `int a[5];` then
//! `a[2] = 7`, `a[i]++` and `m[1][2] += 3` store into the variable's own storage.
//! Struct and union members of D variables are places too ("Structs and
//! Unions": `i[probefunc].calls++`, `self->s.a = 1`, `x.in.arr[2] = 5`), in
//! globals, clause-locals, thread-locals and associative-array elements; a
//! dynamic element that does not exist yet is created zero-filled by the store.

use crate::check::{Checker, R};
use crate::expr::{convert, mk};
use crate::ir::*;
use dtrace_ctypes::{TypeId, TypeKind};
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Tag};

impl<'a> Checker<'a> {
    /// `e` as a scalar (integer, pointer or D string) inside a D variable's storage: an
    /// element of a scalar array or a member of a struct or union held by a
    /// global, clause-local, thread-local or associative-array element. Its lvalue
    /// and type; `None` when `e` is anything else (a whole associative-array
    /// element, kernel memory, ...).
    pub(crate) fn scalar_array_elem(&mut self, e: &ast::Expr) -> R<Option<(LValue, Ty)>> {
        if !matches!(e.kind, K::Index { .. } | K::Member { arrow: false, .. }) {
            return Ok(None);
        }
        if let Some(r) = self.bitfield_elem(e)? {
            return Ok(Some(r));
        }
        let Some((root, off, elem)) = self.elem_place(e)? else {
            return Ok(None);
        };
        let ty = self.value_ty(elem);
        let size = match ty {
            Ty::Int { .. } | Ty::Ptr { .. } => ty.size(),
            // A `string` member's storage is `strsize` bytes (not the rounded cap).
            Ty::Str { .. } => self.opts.str_member_size(),
            // A struct or union member is assigned whole (copied).
            Ty::Agg { size, .. } if size > 0 && matches!(e.kind, K::Member { .. }) => size,
            _ => return Ok(None),
        };
        let var_size = match &root {
            ElemRoot::Var(VarRef::Global(i)) => self.out.globals.get(*i as usize).map(|v| v.ty),
            ElemRoot::Var(VarRef::Clause(i)) => self.out.clause_vars.get(*i as usize).map(|v| v.ty),
            ElemRoot::Var(VarRef::Thread(i)) => self.out.thread_vars.get(*i as usize).map(|v| v.ty),
            ElemRoot::Array { array, .. } => self.out.arrays.get(*array as usize).map(|a| a.value),
        }
        .map(|t| t.size())
        .unwrap_or(0);
        let Some(limit) = var_size.checked_sub(size) else {
            return Ok(None);
        };
        let lv = LValue::Elem {
            root,
            off: Box::new(off),
            limit,
            bits: None,
        };
        Ok(Some((lv, ty)))
    }

    /// `v.m` where `m` is a bit-field of a struct or union held in a D variable:
    /// the place of its storage unit and where the bits lie in it.
    fn bitfield_elem(&mut self, e: &ast::Expr) -> R<Option<(LValue, Ty)>> {
        let K::Member {
            base,
            name,
            arrow: false,
        } = &e.kind
        else {
            return Ok(None);
        };
        let Some((root, off, sou)) = self.elem_place(base)? else {
            return Ok(None);
        };
        let Some((m, mty)) = self.types.member(sou, name) else {
            return Ok(None);
        };
        let Some(bf) = self.types.bitfield(&m) else {
            return Ok(None);
        };
        let (Ok(size), Ok(shift), Ok(width)) = (
            u8::try_from(bf.size),
            u8::try_from(bf.shift),
            u8::try_from(bf.width),
        ) else {
            return Ok(None);
        };
        if !matches!(size, 1 | 2 | 4 | 8) || u32::from(shift) + u32::from(width) > 64 {
            return Ok(None);
        }
        let ty = self.value_ty(mty);
        if !ty.is_int() {
            return Ok(None);
        }
        let var_size = self.root_size(&root);
        let Some(limit) = var_size.checked_sub(u32::from(size)) else {
            return Ok(None);
        };
        let long = self.b.long;
        let uoff = mk(TExprKind::Int(bf.byte_offset as i64), long, e.span);
        let off = self.arith(ArithOp::Add, "+", off, uoff, e.span)?;
        let lv = LValue::Elem {
            root,
            off: Box::new(off),
            limit,
            bits: Some(BitPlace { size, shift, width }),
        };
        Ok(Some((lv, ty)))
    }

    fn root_size(&self, root: &ElemRoot) -> u32 {
        match root {
            ElemRoot::Var(VarRef::Global(i)) => self.out.globals.get(*i as usize).map(|v| v.ty),
            ElemRoot::Var(VarRef::Clause(i)) => self.out.clause_vars.get(*i as usize).map(|v| v.ty),
            ElemRoot::Var(VarRef::Thread(i)) => self.out.thread_vars.get(*i as usize).map(|v| v.ty),
            ElemRoot::Array { array, .. } => self.out.arrays.get(*array as usize).map(|a| a.value),
        }
        .map(|t| t.size())
        .unwrap_or(0)
    }

    /// The variable, byte offset (a `long` expression) and C type of a D
    /// variable holding an aggregate, or of an element or member inside one.
    fn elem_place(&mut self, e: &ast::Expr) -> R<Option<(ElemRoot, TExpr, TypeId)>> {
        let (root, ty) = match &e.kind {
            K::Ident(name) => match self.globals.get(name) {
                Some(&i) => (
                    ElemRoot::Var(VarRef::Global(i)),
                    self.out.globals[i as usize].ty,
                ),
                None => return Ok(None),
            },
            K::ThisVar(name) => match self.clause.get(name) {
                Some(&i) => (
                    ElemRoot::Var(VarRef::Clause(i)),
                    self.out.clause_vars[i as usize].ty,
                ),
                None => return Ok(None),
            },
            K::SelfVar(name) => match self.thread.get(name) {
                Some(&i) => (
                    ElemRoot::Var(VarRef::Thread(i)),
                    self.out.thread_vars[i as usize].ty,
                ),
                None => return Ok(None),
            },
            K::Index { base, index } if self.assoc_of_aggs(base).is_some() => {
                let (name, array) = self.assoc_of_aggs(base).unwrap_or_default();
                let keys = self.assoc_keys(base, index)?;
                let keys = self.match_keys(array, &name, keys, e.span)?;
                let ty = self.out.arrays[array as usize].value;
                (ElemRoot::Array { array, keys }, ty)
            }
            K::Index { base, index } => {
                let Some((root, off, arr)) = self.elem_place(base)? else {
                    return Ok(None);
                };
                let Some((elem, _)) = self.array_elem(arr) else {
                    return Ok(None);
                };
                let [i] = index.as_slice() else {
                    let msg = match &base.kind {
                        K::Ident(n) | K::SelfVar(n) | K::ThisVar(n) => {
                            format!("cannot access scalar {n} as an associative array")
                        }
                        _ => "arrays and pointers take exactly one index".to_string(),
                    };
                    return Err(Diagnostic::new(Tag::D_ARR_BADREF, e.span, msg));
                };
                let iv = self.expr(i)?;
                if !iv.ty.is_int() {
                    return Err(Diagnostic::new(
                        Tag::D_OP_INT,
                        i.span,
                        "array index must be of integral type",
                    ));
                }
                // A constant index outside the array is a compile-time error; a
                // run-time one is checked against the storage when stored.
                if crate::expr::const_value(&iv).is_some() {
                    self.bounded_index(arr, iv.clone(), e.span)?;
                }
                let long = self.b.long;
                let size = mk(TExprKind::Int(self.elem_size(elem) as i64), long, i.span);
                let scaled = self.arith(ArithOp::Mul, "*", convert(iv, long), size, i.span)?;
                let off = self.arith(ArithOp::Add, "+", off, scaled, e.span)?;
                return Ok(Some((root, off, elem)));
            }
            K::Member {
                base,
                name,
                arrow: false,
            } => {
                let Some((root, off, sou)) = self.elem_place(base)? else {
                    return Ok(None);
                };
                let is_sou = matches!(
                    self.types.kind(self.types.resolve(sou)),
                    TypeKind::Struct { .. } | TypeKind::Union { .. }
                );
                if !is_sou {
                    return Ok(None);
                }
                let Some((m, mty)) = self.types.member(sou, name) else {
                    return Err(Diagnostic::new(
                        Tag::D_TYPE_MEMBER,
                        e.span,
                        format!("{name} is not a member of {}", self.types.name_of(sou)),
                    ));
                };
                if self.types.bitfield(&m).is_some() {
                    return Ok(None);
                }
                let long = self.b.long;
                let moff = mk(TExprKind::Int((m.bit_offset / 8) as i64), long, e.span);
                let off = self.arith(ArithOp::Add, "+", off, moff, e.span)?;
                return Ok(Some((root, off, mty)));
            }
            _ => return Ok(None),
        };
        match ty {
            Ty::Agg { id, .. } => {
                let zero = mk(TExprKind::Int(0), self.b.long, e.span);
                Ok(Some((root, zero, id)))
            }
            _ => Ok(None),
        }
    }

    /// `base` names an associative array whose values are structs, unions or
    /// arrays: its name and index.
    fn assoc_of_aggs(&self, base: &ast::Expr) -> Option<(String, u32)> {
        let name = self.assoc_name(base)?;
        let array = *self.arrays.get(&name)?;
        let info = self.out.arrays.get(array as usize)?;
        info.value.is_agg().then_some((name, array))
    }
}
