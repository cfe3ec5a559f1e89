//! Variables: globals, `self->`, `this->` and associative arrays. A variable's type is
//! fixed by its first assignment in program order, as in D.

use crate::check::{Checker, R};
use crate::expr::{convert, mk, undefined};
use crate::ir::*;
use dtrace_syntax::ast::{self, BinOp, ExprKind as K};
use dtrace_syntax::{Diagnostic, Span, Tag};

impl<'a> Checker<'a> {
    /// The storage type for a new variable holding values of type `t`.
    fn storage_ty(&self, t: Ty) -> Ty {
        match t {
            Ty::Str { .. } => Ty::Str {
                cap: self.opts.str_cap(),
            },
            other => other,
        }
    }

    /// Check that a value of type `v` may be stored in a place of type `place`.
    fn check_store(&self, place: &Ty, v: &Ty, sym: &str, span: Span) -> R<()> {
        let same_agg = match (place, v) {
            (Ty::Agg { id: a, .. }, Ty::Agg { id: b, .. }) => {
                self.types.name_of(self.types.resolve(*a))
                    == self.types.name_of(self.types.resolve(*b))
            }
            _ => false,
        };
        let ok = (place.is_int() && v.is_int())
            || (place.is_str() && v.is_str())
            || (place.is_ptr() && v.is_int_or_ptr())
            || same_agg;
        if ok {
            Ok(())
        } else {
            Err(self.incompat(place, sym, v, span))
        }
    }

    pub(crate) fn assign(
        &mut self,
        op: Option<BinOp>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> R<TExpr> {
        let sym = match op {
            None => "=".to_string(),
            Some(o) => format!("{}=", o.symbol()),
        };
        if let Some(o) = op {
            let (lv, lty) = self.lvalue_rmw(lhs, &sym)?;
            let r = self.expr(rhs)?;
            let aop = crate::expr::arith_op(o).ok_or_else(|| {
                Diagnostic::new(Tag::D_SYNTAX, span, format!("invalid operator {sym}"))
            })?;
            // `+=` and `-=` step by the size of what a pointer points to: a
            // `void` or function pointer on either side has none.
            if matches!(o, BinOp::Add | BinOp::Sub) && (self.is_vfptr(&lty) || self.is_vfptr(&r.ty))
            {
                return Err(Diagnostic::new(
                    Tag::D_OP_VFPTR,
                    span,
                    format!("operator {sym} requires left-hand scalar operand of known size"),
                ));
            }
            // A non-constant stand-in for the left side, so nothing folds.
            let cur = mk(TExprKind::Var(VarRef::Global(u32::MAX)), lty, lhs.span);
            // Type the operation as `lhs op rhs` would be; the placeholder stands for lhs.
            let typed = self.arith(aop, &sym, cur, r, span)?;
            // Narrower than 64 bits, the operation is computed in 64 (and the
            // store narrows it).
            let typed = match typed.kind {
                TExprKind::Convert(inner) if matches!(inner.kind, TExprKind::Arith { .. }) => {
                    *inner
                }
                kind => mk(kind, typed.ty, typed.span),
            };
            let (op_ty, rhs) = match typed.kind {
                TExprKind::Arith { rhs, .. } => (typed.ty, *rhs),
                // Unreachable: the stand-in is not constant, so nothing folded.
                _ => (typed.ty, typed),
            };
            let k = TExprKind::Assign {
                lv,
                op: Some((aop, op_ty)),
                rhs: Box::new(rhs),
            };
            return Ok(mk(k, lty, span));
        }
        // Plain assignment: type the right side first (so `x = x + 1` with x unknown
        // fails on the right side, as in D).
        match &lhs.kind {
            K::Ident(name) => {
                let r = self.expr(rhs)?;
                let r = self.storable_in(r, true)?;
                if self.builtin(name).is_some() {
                    return Err(Diagnostic::new(
                        Tag::D_OP_WRITE,
                        span,
                        "operator = can only be applied to a writable variable",
                    ));
                }
                if self.arrays.contains_key(name)
                    || self.is_constant_name(name)
                    || name.contains('`')
                {
                    return Err(Diagnostic::new(
                        Tag::D_OP_LVAL,
                        span,
                        "operator = requires modifiable lvalue as an operand",
                    ));
                }
                let id = match self.globals.get(name) {
                    Some(id) => *id,
                    None => {
                        self.check_void(&r)?;
                        let id = self.out.globals.len() as u32;
                        let ty = self.storage_ty(r.ty);
                        self.out.globals.push(VarInfo {
                            name: name.clone(),
                            ty,
                            span: lhs.span,
                            ckind: CKind::Unknown,
                        });
                        self.globals.insert(name.clone(), id);
                        id
                    }
                };
                let ty = self.out.globals[id as usize].ty;
                self.finish_assign(LValue::Var(VarRef::Global(id)), ty, r, span)
            }
            K::SelfVar(name) | K::ThisVar(name) => {
                let thread = matches!(lhs.kind, K::SelfVar(_));
                let r = self.expr(rhs)?;
                let r = self.storable_in(r, true)?;
                let (map, list) = if thread {
                    (&mut self.thread, &mut self.out.thread_vars)
                } else {
                    (&mut self.clause, &mut self.out.clause_vars)
                };
                let id = match map.get(name) {
                    Some(id) => *id,
                    None => {
                        let ty = match r.ty {
                            Ty::Str { .. } => Ty::Str {
                                cap: self.opts.str_cap(),
                            },
                            Ty::Void => {
                                return Err(Diagnostic::new(
                                    Tag::D_OP_VFPTR,
                                    span,
                                    "cannot assign a void expression",
                                ))
                            }
                            t => t,
                        };
                        let id = list.len() as u32;
                        list.push(VarInfo {
                            name: name.clone(),
                            ty,
                            span: lhs.span,
                            ckind: CKind::Unknown,
                        });
                        map.insert(name.clone(), id);
                        id
                    }
                };
                let (vr, ty) = if thread {
                    (VarRef::Thread(id), self.out.thread_vars[id as usize].ty)
                } else {
                    (VarRef::Clause(id), self.out.clause_vars[id as usize].ty)
                };
                self.finish_assign(LValue::Var(vr), ty, r, span)
            }
            // `p.x = v` with `p` a pointer: the member error first.
            K::Member {
                base,
                name,
                arrow: false,
            } if self.expr(base).is_ok_and(|b| b.ty.is_ptr()) => {
                self.member(base, name, false, lhs.span)?;
                Err(not_writable(lhs, "="))
            }
            K::Index { .. } | K::Member { arrow: false, .. }
                if self.scalar_array_elem(lhs)?.is_some() =>
            {
                let r = self.expr(rhs)?;
                // A struct or union member takes a whole struct or union.
                let r = self.storable_in(r, true)?;
                match self.scalar_array_elem(lhs)? {
                    Some((lv, ty)) => self.finish_assign(lv, ty, r, span),
                    None => Err(not_writable(lhs, "=")),
                }
            }
            _ if self.is_mem_place(lhs) => {
                let r = self.expr(rhs)?;
                let r = self.storable(r)?;
                let (lv, ty) = self.mem_lvalue(lhs, "=")?;
                self.finish_assign(lv, ty, r, span)
            }
            K::Index { base, index } => {
                let Some(name) = self.assoc_name(base) else {
                    if let K::ThisVar(n) = &base.kind {
                        if !self.clause.contains_key(n) {
                            return Err(local_array(base.span));
                        }
                    }
                    return Err(not_writable(lhs, "="));
                };
                let name = &name;
                let keys = self.assoc_keys(base, index)?;
                let r = self.expr(rhs)?;
                let r = self.storable_in(r, true)?;
                let array = match self.arrays.get(name) {
                    Some(a) => *a,
                    None => {
                        self.check_void(&r)?;
                        let a = self.out.arrays.len() as u32;
                        let ty = self.storage_ty(r.ty);
                        self.out.arrays.push(ArrayInfo {
                            name: name.clone(),
                            keys: keys.iter().map(|k| k.ty).collect(),
                            value: ty,
                            ckind: CKind::Unknown,
                        });
                        self.arrays.insert(name.clone(), a);
                        a
                    }
                };
                let keys = self.match_keys(array, name, keys, span)?;
                let ty = self.out.arrays[array as usize].value;
                self.finish_assign(LValue::Array { array, keys }, ty, r, span)
            }
            _ => Err(not_writable(lhs, "=")),
        }
    }

    /// A pointer to `void` or to a function (no size to step by).
    fn is_vfptr(&self, t: &Ty) -> bool {
        let Ty::Ptr { id } = t else { return false };
        self.pointee(*id).is_some_and(|p| {
            matches!(
                self.types.kind(self.types.resolve(p)),
                dtrace_ctypes::TypeKind::Void | dtrace_ctypes::TypeKind::Function { .. }
            )
        })
    }

    fn check_void(&self, r: &TExpr) -> R<()> {
        if matches!(r.ty, Ty::Void) {
            return Err(Diagnostic::new(
                Tag::D_OP_VFPTR,
                r.span,
                "cannot assign a void expression",
            ));
        }
        Ok(())
    }

    fn finish_assign(&mut self, lv: LValue, ty: Ty, r: TExpr, span: Span) -> R<TExpr> {
        // NULL stored in a string is the NULL string (see `TExprKind::NullStr`).
        let r = if ty.is_str() && crate::strfn::is_null_constant(&r) {
            crate::expr::null_string(r.span)
        } else {
            r
        };
        // Storing 0 into a struct- or union-valued dynamic variable (thread-local
        // or associative-array element) deletes it, as for any dynamic variable.
        let dynamic = matches!(lv, LValue::Array { .. } | LValue::Var(VarRef::Thread(_)));
        if dynamic && ty.is_agg() && crate::expr::const_value(&r) == Some(0) {
            let k = TExprKind::Assign {
                lv,
                op: None,
                rhs: Box::new(r),
            };
            return Ok(mk(k, ty, span));
        }
        // An array stored in a pointer decays to the address of its first element.
        let r = if ty.is_ptr() { self.decay(r) } else { r };
        // A pointer takes pointers and the null constant only, as in C: an
        // integer needs a cast.
        if ty.is_ptr() && r.ty.is_int() && crate::expr::const_value(&r) != Some(0) {
            return Err(self.incompat(&ty, "=", &r.ty, span));
        }
        self.check_store(&ty, &r.ty, "=", span)?;
        self.note_alloca_store(&lv, &r, span)?;
        // Strings keep their own capacity: codegen copies with padding.
        let rhs = match ty {
            Ty::Str { .. } | Ty::Agg { .. } => r,
            Ty::Ptr { .. } => crate::ptr::retype(r, ty),
            _ => convert(r, ty),
        };
        let k = TExprKind::Assign {
            lv,
            op: None,
            rhs: Box::new(rhs),
        };
        Ok(mk(k, ty, span))
    }

    /// The lvalue of a read-modify-write operator (compound assignment, `++`, `--`).
    /// An undeclared variable or array is created here with type `int64_t`, as D
    /// declares variables implicitly on first use by these operators.
    pub(crate) fn lvalue_rmw(&mut self, e: &ast::Expr, sym: &str) -> R<(LValue, Ty)> {
        let implicit = self.b.int64_t;
        match &e.kind {
            K::Ident(name) => {
                if self.builtin(name).is_some() {
                    return Err(Diagnostic::new(
                        Tag::D_OP_WRITE,
                        e.span,
                        format!("operator {sym} can only be applied to a writable variable"),
                    ));
                }
                if self.arrays.contains_key(name) || self.is_constant_name(name) {
                    return Err(lval_err(sym, e.span));
                }
                let id = match self.globals.get(name) {
                    Some(id) => *id,
                    None => self.new_global(name, implicit, e.span),
                };
                Ok((
                    LValue::Var(VarRef::Global(id)),
                    self.out.globals[id as usize].ty,
                ))
            }
            K::SelfVar(name) => {
                let id = match self.thread.get(name) {
                    Some(id) => *id,
                    None => self.new_thread(name, implicit, e.span),
                };
                Ok((
                    LValue::Var(VarRef::Thread(id)),
                    self.out.thread_vars[id as usize].ty,
                ))
            }
            K::ThisVar(name) => {
                let id = match self.clause.get(name) {
                    Some(id) => *id,
                    None => self.new_clause(name, implicit, e.span),
                };
                Ok((
                    LValue::Var(VarRef::Clause(id)),
                    self.out.clause_vars[id as usize].ty,
                ))
            }
            // `p.x` with `p` a pointer: the member error first, as when read.
            K::Member {
                base,
                name,
                arrow: false,
            } if self.expr(base).is_ok_and(|b| b.ty.is_ptr()) => {
                self.member(base, name, false, e.span)?;
                Err(not_writable(e, sym))
            }
            K::Index { .. } | K::Member { arrow: false, .. }
                if self.scalar_array_elem(e)?.is_some() =>
            {
                self.scalar_array_elem(e)?
                    .ok_or_else(|| not_writable(e, sym))
            }
            _ if self.is_mem_place(e) => self.mem_lvalue(e, sym),
            K::Index { base, index } => {
                let Some(name) = self.assoc_name(base) else {
                    return Err(not_writable(e, sym));
                };
                let keys = self.assoc_keys(base, index)?;
                let array = match self.arrays.get(&name) {
                    Some(a) => *a,
                    None => self.new_array(&name, &keys, implicit),
                };
                let keys = self.match_keys(array, &name, keys, e.span)?;
                Ok((
                    LValue::Array { array, keys },
                    self.out.arrays[array as usize].value,
                ))
            }
            _ => Err(not_writable(e, sym)),
        }
    }

    pub(crate) fn new_global(&mut self, name: &str, ty: Ty, span: Span) -> u32 {
        let id = self.out.globals.len() as u32;
        self.out.globals.push(VarInfo {
            name: name.to_string(),
            ty,
            span,
            ckind: CKind::Unknown,
        });
        self.globals.insert(name.to_string(), id);
        id
    }

    pub(crate) fn new_thread(&mut self, name: &str, ty: Ty, span: Span) -> u32 {
        let id = self.out.thread_vars.len() as u32;
        self.out.thread_vars.push(VarInfo {
            name: name.to_string(),
            ty,
            span,
            ckind: CKind::Unknown,
        });
        self.thread.insert(name.to_string(), id);
        id
    }

    pub(crate) fn new_clause(&mut self, name: &str, ty: Ty, span: Span) -> u32 {
        let id = self.out.clause_vars.len() as u32;
        self.out.clause_vars.push(VarInfo {
            name: name.to_string(),
            ty,
            span,
            ckind: CKind::Unknown,
        });
        self.clause.insert(name.to_string(), id);
        id
    }

    pub(crate) fn new_array(&mut self, name: &str, keys: &[TExpr], value: Ty) -> u32 {
        let a = self.out.arrays.len() as u32;
        self.out.arrays.push(ArrayInfo {
            name: name.to_string(),
            keys: keys.iter().map(|k| k.ty).collect(),
            value,
            ckind: CKind::Unknown,
        });
        self.arrays.insert(name.to_string(), a);
        a
    }

    pub(crate) fn keys(&mut self, index: &[ast::Expr]) -> R<Vec<TExpr>> {
        self.keys_of(index, false)
    }

    /// [`Checker::keys`]; with `sou`, structs and unions are keys too (by their
    /// bytes), as in associative arrays.
    pub(crate) fn keys_of(&mut self, index: &[ast::Expr], sou: bool) -> R<Vec<TExpr>> {
        if index.len() > self.opts.tregs as usize {
            let span = index.first().map_or(Span::default(), |k| k.span);
            return Err(Diagnostic::new(
                Tag::D_NOREG,
                span,
                "Insufficient tuple registers to generate code",
            )
            .without_line());
        }
        let mut keys = Vec::new();
        let depth = self.depth;
        for (i, k) in index.iter().enumerate() {
            if let K::Agg(name) = &k.kind {
                // An aggregation is a dynamic value: no key's type.
                return Err(Diagnostic::new(
                    Tag::D_KEY_TYPE,
                    k.span,
                    format!(
                        "key #{} (@{name}) cannot be of type dynamic variable",
                        i + 1
                    ),
                ));
            }
            // Earlier keys stay live while later ones are evaluated.
            self.depth = depth + i as u32;
            let t = self.expr(k);
            self.depth = depth;
            let t = t?;
            // A stack is a key as it is (its frames are the key's bytes).
            let t = if let Ty::Stack { .. } = t.ty {
                t
            } else {
                self.storable_in(t, sou)?
            };
            if !(t.ty.is_int_or_ptr()
                || t.ty.is_str()
                || matches!(t.ty, Ty::Stack { .. })
                || (sou && t.ty.is_agg()))
            {
                return Err(Diagnostic::new(
                    Tag::D_KEY_TYPE,
                    k.span,
                    "associative array keys must be of scalar type",
                ));
            }
            keys.push(t);
        }
        Ok(keys)
    }

    /// Check keys against the array's prototype; widen string key capacities.
    pub(crate) fn match_keys(
        &mut self,
        array: u32,
        name: &str,
        keys: Vec<TExpr>,
        span: Span,
    ) -> R<Vec<TExpr>> {
        let proto = self.out.arrays[array as usize].keys.clone();
        let protos: Vec<Ty> = self.check_tuple(&format!("{name}[ ]"), &proto, &keys, span)?;
        self.out.arrays[array as usize].keys = protos.clone();
        Ok(keys
            .into_iter()
            .zip(protos.iter())
            .map(|(k, p)| match p {
                Ty::Int { .. } => convert(k, *p),
                Ty::Ptr { .. } => crate::ptr::retype(k, *p),
                _ => k,
            })
            .collect())
    }

    /// Check a key tuple against a prototype: same count and compatible types.
    /// Returns the prototype with string capacities widened to cover these keys.
    pub(crate) fn check_tuple(
        &self,
        what: &str,
        proto: &[Ty],
        keys: &[TExpr],
        span: Span,
    ) -> R<Vec<Ty>> {
        if proto.len() != keys.len() {
            return Err(Diagnostic::new(
                Tag::D_PROTO_LEN,
                span,
                format!(
                    "{what} prototype mismatch: {} key{}passed, {} expected",
                    keys.len(),
                    if keys.len() == 1 { " " } else { "s " },
                    proto.len()
                ),
            ));
        }
        let mut out = Vec::new();
        for (i, (p, k)) in proto.iter().zip(keys).enumerate() {
            match (p, &k.ty) {
                (Ty::Int { .. }, Ty::Int { .. }) | (Ty::Ptr { .. }, Ty::Ptr { .. }) => {
                    out.push(*p)
                }
                (Ty::Str { cap: a }, Ty::Str { cap: b }) => out.push(Ty::Str { cap: *a.max(b) }),
                // Stacks and symbol values of one kind and depth.
                (Ty::Stack { .. }, Ty::Stack { .. }) if *p == k.ty => out.push(*p),
                (Ty::Agg { id: a, .. }, Ty::Agg { id: b, .. })
                    if self.types.name_of(self.types.resolve(*a))
                        == self.types.name_of(self.types.resolve(*b)) =>
                {
                    out.push(*p)
                }
                _ => {
                    return Err(Diagnostic::new(
                        Tag::D_PROTO_ARG,
                        k.span,
                        format!(
                            "{what} key #{} is incompatible with prototype:\n\tprototype: {}\n\t      key: {}",
                            i + 1,
                            self.name(p),
                            self.name(&k.ty)
                        ),
                    ))
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn index_read(
        &mut self,
        base: &ast::Expr,
        index: &[ast::Expr],
        span: Span,
    ) -> R<TExpr> {
        match &base.kind {
            K::Ident(name) if self.is_param_inline(name) && !self.arrays.contains_key(name) => {
                self.param_inline_use(name, index, span)
            }
            K::Ident(name) if name == "args" && !self.arrays.contains_key(name) => {
                self.args_index(index, span)
            }
            K::Ident(name) if name == "uregs" && !self.arrays.contains_key(name) => {
                self.uregs_index(index, span)
            }
            K::Ident(name) if !self.arrays.contains_key(name) && self.names_object(name) => {
                self.c_index(base, index, span)
            }
            K::Ident(name) => {
                let Some(array) = self.arrays.get(name).copied() else {
                    return Err(undefined(name, base.span));
                };
                let keys = self.keys_of(index, true)?;
                let keys = self.match_keys(array, name, keys, span)?;
                let ty = self.out.arrays[array as usize].value;
                Ok(mk(TExprKind::ArrayGet { array, keys }, ty, span))
            }
            K::SelfVar(name) if !self.thread.contains_key(name) => {
                let full = thread_array_name(name);
                let keys = self.assoc_keys(base, index)?;
                // A thread-local array read before any store: its values are
                // `int64_t`, as an implicit declaration by `++` would make them.
                let array = match self.arrays.get(&full) {
                    Some(a) => *a,
                    None => self.new_array(&full, &keys, self.b.int64_t),
                };
                let keys = self.match_keys(array, &full, keys, span)?;
                let ty = self.out.arrays[array as usize].value;
                Ok(mk(TExprKind::ArrayGet { array, keys }, ty, span))
            }
            K::Agg(name) => Err(Diagnostic::new(
                Tag::D_AGG_SCALAR,
                span,
                format!("aggregation @{name} may not be used in an expression"),
            )),
            _ => self.c_index(base, index, span),
        }
    }
}

impl<'a> Checker<'a> {
    /// The associative array `base[...]` names, if `base` can name one: a global
    /// array (`a[k]`) or a thread-local one (`self->a[k]`, kept under the name
    /// `self->a` with the thread's ID as a hidden first key).
    pub(crate) fn assoc_name(&self, base: &ast::Expr) -> Option<String> {
        match &base.kind {
            K::Ident(name) if !self.names_object(name) => Some(name.clone()),
            K::SelfVar(name) if !self.thread.contains_key(name) => Some(thread_array_name(name)),
            _ => None,
        }
    }

    /// The keys of `base[index]`: for a thread-local array, the thread's ID first.
    pub(crate) fn assoc_keys(&mut self, base: &ast::Expr, index: &[ast::Expr]) -> R<Vec<TExpr>> {
        let mut keys = Vec::new();
        if matches!(base.kind, K::SelfVar(_)) {
            if let Some((b, ty)) = self.builtin("tid") {
                keys.push(mk(TExprKind::Builtin(b), ty, base.span));
            }
        }
        self.depth += keys.len() as u32;
        let user = self.keys_of(index, true);
        self.depth -= keys.len() as u32;
        keys.extend(user?);
        Ok(keys)
    }

    /// Whether `name` is a D constant (enumerator or inline) rather than a variable.
    pub(crate) fn is_constant_name(&self, name: &str) -> bool {
        self.types.lookup_constant(name).is_some() || self.inlines.contains_key(name)
    }
}

/// A place that is not a variable: kernel memory is read-only to D, anything else
/// is not an lvalue at all.
/// `this->a[k]` names no variable: D has no clause-local associative arrays.
fn local_array(span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_ARR_LOCAL,
        span,
        "local variables may not be used as associative arrays",
    )
}

fn not_writable(e: &ast::Expr, sym: &str) -> Diagnostic {
    if matches!(
        e.kind,
        K::Member { .. }
            | K::Index { .. }
            | K::Unary {
                op: ast::UnOp::Deref,
                ..
            }
    ) {
        return Diagnostic::new(
            Tag::D_OP_WRITE,
            e.span,
            format!("operator {sym} can only be applied to a writable variable"),
        );
    }
    lval_err(sym, e.span)
}

fn lval_err(sym: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_OP_LVAL,
        span,
        format!("operator {sym} requires modifiable lvalue as an operand"),
    )
}

/// The name a thread-local associative array `self->name` is kept under.
pub(crate) fn thread_array_name(name: &str) -> String {
    format!("self->{name}")
}
