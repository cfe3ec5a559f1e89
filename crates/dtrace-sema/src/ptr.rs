//! Pointers and kernel memory: `*p`, `p->m`, `s.m`, C array indexing, `&`, pointer
//! arithmetic, `curthread`, `args[N]`, kernel symbols (`` `jiffies``), and the
//! conversions of `char` arrays and pointers to D strings.
//!
//! Model: an expression of aggregate type (struct, union, C array: [`Ty::Agg`]) has
//! the object's kernel address as its value; a scalar read from kernel memory is a
//! [`TExprKind::Load`] of an address. Kernel memory is read-only to D.
//!
//! Kernel symbols without a BTF variable have the documented default type
//! `unsigned long` (a word at the symbol's address).

use crate::check::{str_cap_for, Checker, R};
use crate::ctype::split_scope;
use crate::expr::{convert, mk};
use crate::ir::*;
use dtrace_ctypes::{TypeId, TypeKind};
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Largest struct, union or array a D variable or associative-array element holds.
pub(crate) const MAX_AGG_VAR: u32 = 4096;

/// `e` with type `ty` and no code (both are 64-bit register values).
pub(crate) fn retype(mut e: TExpr, ty: Ty) -> TExpr {
    e.ty = ty;
    e
}

impl<'a> Checker<'a> {
    /// The value of the object of C type `ty` at address `addr`: a load for scalars,
    /// the address itself for aggregates.
    pub(crate) fn place(&mut self, addr: TExpr, ty: TypeId, span: Span) -> R<TExpr> {
        let value = self.value_ty(ty);
        if let Ty::Ptr { .. } = value {
            if self.types.size_of(ty, 0) == 4 && !self.is_scratch(&addr) {
                // A D pointer of the ILP32 model (-32) in memory: its 32 bits,
                // zero-extended to the 64-bit address D holds.
                let word = Ty::Int {
                    size: 4,
                    signed: false,
                    id: self.b.uint.type_id().unwrap_or(self.b.void_id),
                };
                let load = mk(TExprKind::Load(Box::new(addr)), word, span);
                return Ok(mk(TExprKind::Convert(Box::new(load)), value, span));
            }
        }
        match value {
            t @ (Ty::Int { .. } | Ty::Ptr { .. }) if self.is_scratch(&addr) => {
                Ok(mk(TExprKind::LoadScratch(Box::new(addr)), t, span))
            }
            t @ (Ty::Int { .. } | Ty::Ptr { .. }) => {
                Ok(mk(TExprKind::Load(Box::new(addr)), t, span))
            }
            t @ (Ty::Agg { .. } | Ty::Stack { .. }) => {
                // A variable typed as an aggregate is that variable's own
                // storage: the object a pointer variable points to is reached
                // through the pointer's value instead.
                let addr = match addr.kind {
                    TExprKind::Var(_) | TExprKind::ArrayGet { .. } => {
                        let (ty, s) = (addr.ty, addr.span);
                        mk(TExprKind::NotNull(Box::new(addr)), ty, s)
                    }
                    _ => addr,
                };
                let mut a = retype(addr, t);
                a.span = span;
                Ok(a)
            }
            Ty::Void => Err(Diagnostic::new(
                Tag::D_DEREF_VOID,
                span,
                "cannot dereference pointer to void",
            )),
            // A D string in memory (a `string` member of a D struct or union):
            // `strsize` bytes holding a NUL-terminated string.
            Ty::Str { .. } => {
                let mut s = self.kstr(addr, self.opts.str_member_size());
                s.span = span;
                Ok(s)
            }
        }
    }

    /// `base + off` as an address of type `ty` (folded when `base` is constant).
    pub(crate) fn addr_plus(&self, base: TExpr, off: i64, ty: Ty) -> TExpr {
        let span = base.span;
        if off == 0 {
            return retype(base, ty);
        }
        if let TExprKind::Int(v) = base.kind {
            return mk(TExprKind::Int(v.wrapping_add(off)), ty, span);
        }
        let k = TExprKind::Arith {
            op: ArithOp::Add,
            lhs: Box::new(retype(base, self.b.ulong)),
            rhs: Box::new(mk(TExprKind::Int(off), self.b.ulong, span)),
        };
        mk(k, ty, span)
    }

    /// `base + index * scale` (`sub`: minus) as a value of type `ty`.
    fn scaled(&mut self, base: TExpr, index: TExpr, scale: u64, sub: bool, ty: Ty) -> R<TExpr> {
        let span = base.span;
        let long = self.b.long;
        let i = convert(index, long);
        let s = mk(TExprKind::Int(scale as i64), long, span);
        let off = self.arith(ArithOp::Mul, "*", i, s, span)?;
        let op = if sub { ArithOp::Sub } else { ArithOp::Add };
        let sym = if sub { "-" } else { "+" };
        let r = self.arith(op, sym, retype(base, long), off, span)?;
        Ok(retype(r, ty))
    }

    /// Arrays decay to pointers to their first element.
    pub(crate) fn decay(&mut self, e: TExpr) -> TExpr {
        if let Ty::Agg { id, .. } = e.ty {
            if let Some((elem, _)) = self.array_elem(id) {
                let p = self.types.pointer_to(elem);
                return retype(e, Ty::Ptr { id: p });
            }
        }
        e
    }

    /// A `char` array or `char *` as a D string (read from kernel memory); strings
    /// as they are; `None` for anything else.
    pub(crate) fn string_of(&self, e: TExpr) -> Result<TExpr, TExpr> {
        // Bytes read, the NUL included.
        let strsize = self.opts.strsize.clamp(1, 1 << 16) + 1;
        let max = match e.ty {
            Ty::Str { .. } => return Ok(e),
            Ty::Agg { id, .. } => match self.array_elem(id) {
                Some((elem, len)) if self.is_char(elem) && len > 0 => {
                    len.min(strsize as u64) as u32
                }
                _ => return Err(e),
            },
            Ty::Ptr { id } => match self.pointee(id) {
                Some(t) if self.is_char(t) => strsize,
                _ => return Err(e),
            },
            _ => return Err(e),
        };
        Ok(self.kstr(e, max))
    }

    /// The string at `addr` (at most `max` bytes with the NUL): read from kernel
    /// memory, or from allocated scratch memory for an alloca pointer.
    fn kstr(&self, addr: TExpr, max: u32) -> TExpr {
        let span = addr.span;
        let cap = str_cap_for(max, self.opts);
        let scratch = self.is_scratch(&addr);
        let addr = Box::new(addr);
        let k = if scratch {
            TExprKind::ScratchStr { addr, max }
        } else {
            TExprKind::KStr { addr, max }
        };
        mk(k, Ty::Str { cap }, span)
    }

    /// `stringof(e)`: strings stay, `char` arrays and pointers read a string, any
    /// other pointer or integer is taken as the address of one.
    pub(crate) fn stringof(&mut self, x: &ast::Expr, span: Span) -> R<TExpr> {
        let v = self.expr(x)?;
        let v = match self.string_conversion(v, span) {
            Ok(s) => return Ok(s),
            Err(v) => v,
        };
        Err(Diagnostic::new(
            Tag::D_STRINGOF_TYPE,
            span,
            format!(
                "stringof( ) operand must be of scalar type: \"{}\"",
                self.name(&v.ty)
            ),
        ))
    }

    /// `v` as a string, as `stringof` and a `(string)` cast convert it (the two
    /// are "equivalent in meaning": any scalar -- a pointer, an integer or a
    /// scalar array address -- may be converted; Dynamic Tracing Guide, "String
    /// Conversion"); the value back when it cannot be.
    pub(crate) fn string_conversion(&mut self, v: TExpr, span: Span) -> Result<TExpr, TExpr> {
        let v = match self.string_of(v) {
            Ok(s) => return Ok(retype_span(s, span)),
            Err(v) => v,
        };
        let v = self.decay(v);
        if v.ty.is_int_or_ptr() {
            let max = self.opts.strsize.clamp(1, 1 << 16) + 1;
            return Ok(retype_span(self.kstr(v, max), span));
        }
        Err(v)
    }

    /// A value that may be stored in a variable, key or record slot: `char` arrays
    /// become strings; other aggregates are refused.
    pub(crate) fn storable(&mut self, e: TExpr) -> R<TExpr> {
        self.storable_in(e, false)
    }

    /// [`Checker::storable`]; with `whole`, a struct, union or non-`char` array of
    /// at most [`MAX_AGG_VAR`] bytes is stored whole (variables and
    /// associative-array elements).
    pub(crate) fn storable_in(&mut self, e: TExpr, whole: bool) -> R<TExpr> {
        if let Ty::Stack { .. } = e.ty {
            return Err(Diagnostic::new(
                Tag::D_OP_SOU,
                e.span,
                "stack( ) values cannot be stored (trace them, print them with %k or use them as keys)",
            ));
        }
        if !e.ty.is_agg() {
            return Ok(e);
        }
        match self.string_of(e) {
            Ok(s) => Ok(s),
            Err(e) if whole && e.ty.size() > 0 && e.ty.size() <= MAX_AGG_VAR => Ok(e),
            Err(e) => Err(Diagnostic::new(
                Tag::D_OP_SOU,
                e.span,
                format!(
                    "values of type {} cannot be stored (trace( ) or print a member)",
                    self.name(&e.ty)
                ),
            )),
        }
    }

    /// `e.name` (`arrow == false`) or `e->name`.
    pub(crate) fn member(
        &mut self,
        base: &ast::Expr,
        name: &str,
        arrow: bool,
        span: Span,
    ) -> R<TExpr> {
        if let Some(r) = self.xlate_member(base, name, arrow, span) {
            return r;
        }
        let b = self.expr(base)?;
        let obj = match (arrow, b.ty) {
            (true, Ty::Ptr { id }) => self.pointee(id),
            (false, Ty::Agg { id, .. }) => Some(id),
            _ => None,
        };
        let op = if arrow { "->" } else { "." };
        let sou = obj.filter(|o| {
            matches!(
                self.types.kind(self.types.resolve(*o)),
                TypeKind::Struct { .. } | TypeKind::Union { .. } | TypeKind::Forward { .. }
            )
        });
        let Some(obj) = sou else {
            // As libdtrace words them: `->` needs a pointer, then one to a
            // struct or union; `.` needs a struct or union.
            let d = match (arrow, obj) {
                (true, None) => Diagnostic::new(
                    Tag::D_OP_PTR,
                    span,
                    "operator -> must be applied to a pointer",
                ),
                (true, Some(o)) => Diagnostic::new(
                    Tag::D_OP_SOU,
                    span,
                    format!(
                        "operator -> cannot be applied to pointer to type \"{}\"; must be applied to a struct or union pointer",
                        self.types.name_of(o)
                    ),
                ),
                (false, _) => Diagnostic::new(
                    Tag::D_OP_SOU,
                    span,
                    format!(
                        "operator . cannot be applied to type \"{}\"; must be applied to a struct or union",
                        self.name(&b.ty)
                    ),
                ),
            };
            return Err(d);
        };
        if let TypeKind::Forward { name: n, is_union } = self.types.kind(self.types.resolve(obj)) {
            return Err(Diagnostic::new(
                Tag::D_OP_INCOMPLETE,
                span,
                format!(
                    "operator {op} cannot be applied to a forward declaration: no {} {n} definition is available",
                    if *is_union { "union" } else { "struct" }
                ),
            ));
        }
        let Some((m, mty)) = self.types.member(obj, name) else {
            return Err(Diagnostic::new(
                Tag::D_TYPE_MEMBER,
                span,
                format!("{name} is not a member of {}", self.types.name_of(obj)),
            ));
        };
        if let Some(bf) = self.types.bitfield(&m) {
            let ty = match self.value_ty(mty) {
                t @ Ty::Int { .. } => t,
                _ => self.b.int,
            };
            let b = if arrow { self.checked_base(b) } else { b };
            let addr = self.addr_plus(b, bf.byte_offset as i64, self.b.ulong);
            let k = TExprKind::LoadBits {
                addr: Box::new(addr),
                size: bf.size as u8,
                shift: bf.shift as u8,
                width: bf.width as u8,
            };
            return Ok(mk(k, ty, span));
        }
        let b = if arrow { self.checked_base(b) } else { b };
        let addr = self.addr_plus(b, (m.bit_offset / 8) as i64, self.b.ulong);
        self.place(addr, mty, span)
    }

    /// The pointer `->` is applied to, checked for NULL at run time (a fault at
    /// address 0, as DTrace reports it) unless it is a non-zero constant or
    /// scratch memory (bounds-checked on its own).
    fn checked_base(&self, b: TExpr) -> TExpr {
        if matches!(b.kind, TExprKind::Int(v) if v != 0) || self.is_scratch(&b) {
            return b;
        }
        let (ty, span) = (b.ty, b.span);
        mk(TExprKind::NotNull(Box::new(b)), ty, span)
    }

    /// `*e`.
    pub(crate) fn deref(&mut self, x: &ast::Expr, span: Span) -> R<TExpr> {
        let v = self.xlate_whole(x, true, span)?;
        if matches!(v.kind, TExprKind::Build { .. }) {
            return Ok(v);
        }
        let target = match v.ty {
            Ty::Ptr { id } => self.pointee(id),
            Ty::Agg { id, .. } => self.array_elem(id).map(|(e, _)| e),
            _ => None,
        };
        let Some(t) = target else {
            return Err(Diagnostic::new(
                Tag::D_DEREF_NONPTR,
                span,
                "cannot dereference non-pointer type",
            ));
        };
        self.place(v, t, span)
    }

    /// A member's address without the NULL check of `->`: `&p->m` only
    /// computes an address (`&((T *)0)->m` is the member's offset).
    fn unchecked(&self, addr: TExpr) -> TExpr {
        match addr.kind {
            TExprKind::NotNull(p) => *p,
            TExprKind::Arith {
                op: ArithOp::Add,
                lhs,
                rhs,
            } => {
                let lhs = self.unchecked(*lhs);
                match (&lhs.kind, &rhs.kind) {
                    (TExprKind::Int(a), TExprKind::Int(b)) => {
                        mk(TExprKind::Int(a.wrapping_add(*b)), addr.ty, addr.span)
                    }
                    _ => mk(
                        TExprKind::Arith {
                            op: ArithOp::Add,
                            lhs: Box::new(lhs),
                            rhs,
                        },
                        addr.ty,
                        addr.span,
                    ),
                }
            }
            kind => TExpr { kind, ..addr },
        }
    }

    /// `&e`: the address of an object in kernel memory.
    pub(crate) fn addr_of(&mut self, x: &ast::Expr, span: Span) -> R<TExpr> {
        let v = self.expr(x)?;
        let ty_id = v.ty.type_id();
        match (v.kind, ty_id) {
            (TExprKind::Load(addr) | TExprKind::LoadScratch(addr), Some(id)) => {
                let p = self.types.pointer_to(id);
                let addr = self.unchecked(*addr);
                Ok(retype_span(retype(addr, Ty::Ptr { id: p }), span))
            }
            (TExprKind::LoadBits { .. }, _) => Err(Diagnostic::new(
                Tag::D_ADDROF_BITFIELD,
                span,
                "cannot take address of bit-field",
            )),
            // D variables (structs and arrays too) have no address D may use.
            (TExprKind::Var(_) | TExprKind::ArrayGet { .. }, _) => Err(Diagnostic::new(
                Tag::D_ADDROF_VAR,
                span,
                "cannot take address of dynamic variable",
            )),
            (kind, Some(id)) if v.ty.is_agg() => {
                let p = self.types.pointer_to(id);
                Ok(mk(kind, Ty::Ptr { id: p }, span))
            }
            // dtrace(1)'s D_ADDROF_LVAL, for an operand that is not an lvalue.
            _ => Err(Diagnostic::new(
                Tag::D_ADDROF_LVAL,
                span,
                "unacceptable operand for unary & operator",
            )),
        }
    }

    /// `base[i]` on a C array or pointer.
    pub(crate) fn c_index(
        &mut self,
        base: &ast::Expr,
        index: &[ast::Expr],
        span: Span,
    ) -> R<TExpr> {
        let b = self.expr(base)?;
        if b.ty.is_str() {
            return self.str_index(b, index, span);
        }
        let elem = match b.ty {
            Ty::Ptr { id } => self.pointee(id),
            Ty::Agg { id, .. } => self.array_elem(id).map(|(e, _)| e),
            _ => None,
        };
        let Some(elem) = elem else {
            return Err(Diagnostic::new(
                Tag::D_OP_PTR,
                span,
                format!(
                    "operator [ ] cannot be applied to type \"{}\"; must be applied to an array or pointer",
                    self.name(&b.ty)
                ),
            ));
        };
        let iv = self.one_index(index, span)?;
        let iv = match b.ty {
            Ty::Agg { id, .. } => self.bounded_index(id, iv, span)?,
            _ => iv,
        };
        let size = self.elem_size(elem);
        let ulong = self.b.ulong;
        let addr = self.scaled(b, iv, size, false, ulong)?;
        self.place(addr, elem, span)
    }

    /// An index into the array type `arr`: a constant one outside the array is
    /// an error (D_ARR_BOUNDS); any other is checked when the clause runs.
    pub(crate) fn bounded_index(&mut self, arr: TypeId, iv: TExpr, span: Span) -> R<TExpr> {
        let Some((_, len)) = self.array_elem(arr) else {
            return Ok(iv);
        };
        if len == 0 {
            return Ok(iv);
        }
        if let Some(v) = crate::expr::const_value(&iv) {
            if v < 0 || v as u64 >= len {
                return Err(Diagnostic::new(
                    Tag::D_ARR_BOUNDS,
                    span,
                    format!("index outside array bounds: {v}, max is {len}"),
                ));
            }
            return Ok(iv);
        }
        let long = self.b.long;
        let k = TExprKind::CheckIndex {
            index: Box::new(convert(iv, long)),
            len: u32::try_from(len).unwrap_or(u32::MAX),
        };
        Ok(mk(k, long, span))
    }

    /// The one integer index of an array, pointer or string subscript.
    fn one_index(&mut self, index: &[ast::Expr], span: Span) -> R<TExpr> {
        let [i] = index else {
            return Err(Diagnostic::new(
                Tag::D_ARR_BADREF,
                span,
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
        Ok(iv)
    }

    /// `s[i]` on a string: a `char` of its buffer.
    fn str_index(&mut self, s: TExpr, index: &[ast::Expr], span: Span) -> R<TExpr> {
        let iv = self.one_index(index, span)?;
        // A char array read as a string (`char pr_name[16]` of a kernel or
        // translated struct) keeps its array bounds: a constant index outside
        // it is an error. (A string variable's index is checked when it runs.)
        if let (Some(v), TExprKind::KStr { max, .. }) = (crate::expr::const_value(&iv), &s.kind) {
            if *max > 0 && (v < 0 || v as u64 >= u64::from(*max)) {
                return Err(Diagnostic::new(
                    Tag::D_ARR_BOUNDS,
                    span,
                    format!("index outside array bounds: {v}, max is {max}"),
                ));
            }
        }
        let iv = convert(iv, self.b.long);
        let k = TExprKind::StrIndex {
            s: Box::new(s),
            index: Box::new(iv),
        };
        Ok(mk(k, self.b.char_, span))
    }

    /// `args[N]`: argument N typed as the probe declares it.
    pub(crate) fn args_index(&mut self, index: &[ast::Expr], span: Span) -> R<TExpr> {
        let [i] = index else {
            return Err(Diagnostic::new(
                Tag::D_ARGS_IDX,
                span,
                "args[ ] takes exactly one index",
            ));
        };
        let iv = self.expr(i)?;
        let n = crate::expr::const_value(&iv).filter(|_| iv.ty.is_int());
        let nargs = self
            .probes
            .first()
            .map(|p| p.args.len())
            .unwrap_or(0)
            .min(10) as i64;
        let n = match n {
            Some(n) if (0..nargs).contains(&n) => n as u8,
            Some(n) => {
                let desc = self
                    .probes
                    .first()
                    .map(|p| format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name))
                    .unwrap_or_default();
                return Err(Diagnostic::new(
                    Tag::D_ARGS_IDX,
                    i.span,
                    format!("index {n} is out of range for {desc} args[ ]"),
                ));
            }
            None => {
                return Err(Diagnostic::new(
                    Tag::D_ARGS_IDX,
                    i.span,
                    "index of args[ ] must be an integer constant",
                ))
            }
        };
        let Some(d) = self
            .probes
            .first()
            .and_then(|p| p.args.get(n as usize))
            .cloned()
        else {
            self.args_used |= 1 << n;
            return Ok(mk(
                TExprKind::Builtin(Builtin::Arg(n)),
                self.b.int64_t,
                span,
            ));
        };
        if let Some(x) = d.xlate.as_ref().filter(|x| **x != d.native) {
            // Member access and `*args[i]` translate (see `xlate`); the
            // translated pointer itself is no value.
            return Err(Diagnostic::new(
                Tag::D_XLATE_SOU,
                span,
                format!("args[{n}] is translated to {x}: it may only be dereferenced (*args[{n}], args[{n}]->member)"),
            ));
        }
        if d.user && d.native == "string" {
            // A user-space path: the string copied in.
            let arg = ast::Expr {
                kind: ast::ExprKind::Ident(format!("arg{}", d.mapping)),
                span,
            };
            let call = ast::Expr {
                kind: ast::ExprKind::Call {
                    func: "copyinstr".into(),
                    args: vec![arg],
                },
                span,
            };
            return self.expr(&call);
        }
        Ok(self.native_arg(&d.native, d.mapping, span))
    }

    /// Native argument `mapping` of a probe, typed `native` (a C type name;
    /// `int64_t` when the type is unknown).
    pub(crate) fn native_arg(&mut self, native: &str, mapping: u8, span: Span) -> TExpr {
        self.args_used |= 1 << mapping.min(9);
        let raw = mk(
            TExprKind::Builtin(Builtin::Arg(mapping.min(9))),
            self.b.int64_t,
            span,
        );
        let Some(id) = self.parse_c_type(native) else {
            return raw;
        };
        match self.value_ty(id) {
            t @ Ty::Int { .. } => retype_span(convert(raw, t), span),
            t @ Ty::Ptr { .. } => retype(raw, t),
            _ => raw,
        }
    }

    /// `curthread`'s type: `struct task_struct *` (a `void *` without kernel BTF).
    pub(crate) fn curthread_ty(&mut self) -> Ty {
        if let Some(t) = self.curthread {
            return t;
        }
        let target = self
            .types
            .lookup_scoped(None, "struct task_struct")
            .unwrap_or(self.b.void_id);
        let t = Ty::Ptr {
            id: self.types.pointer_to(target),
        };
        self.curthread = Some(t);
        t
    }

    /// A backquoted kernel symbol: ``vmlinux`jiffies``, `` `max_pfn``.
    pub(crate) fn kernel_symbol(&mut self, full: &str, span: Span) -> R<TExpr> {
        let (module, name) = split_scope(full);
        let var = self.types.kernel_var(module, name);
        if let Some(v) = &var {
            if let Some((sec, _)) = &v.section {
                if sec.contains("percpu") {
                    return Err(Diagnostic::new(
                        Tag::D_VAR_UNSUP,
                        span,
                        format!("per-CPU kernel variable {full} is not supported"),
                    ));
                }
            }
        }
        let Some(addr) = self.syms.address(module, name) else {
            return Err(Diagnostic::new(
                Tag::D_IDENT_UNDEF,
                span,
                format!("failed to resolve {full}: Unknown symbol name"),
            )
            .with_note(
                "kernel variables are found in /proc/kallsyms, which lists them only \
                 when the kernel is built with CONFIG_KALLSYMS_ALL (nothing else on \
                 the system gives their addresses without debug information)",
            ));
        };
        let ty = match var {
            Some(v) => v.ty,
            None => self.b.ulong.type_id().unwrap_or(self.b.void_id),
        };
        let a = mk(TExprKind::Int(addr as i64), self.b.ulong, span);
        self.place(a, ty, span)
    }

    /// `+`/`-` with a pointer operand (the other is an integer or, for `-`, a
    /// pointer to the same type).
    pub(crate) fn ptr_arith(
        &mut self,
        op: ArithOp,
        sym: &str,
        a: TExpr,
        b: TExpr,
        span: Span,
    ) -> R<TExpr> {
        let step = |c: &Self, t: &Ty| match t {
            Ty::Ptr { id } => c.pointee(*id).map(|p| c.elem_size(p)).unwrap_or(1),
            _ => 1,
        };
        // A `void *` has no step: D refuses arithmetic on it.
        let is_void = |c: &Self, t: &Ty| match t {
            Ty::Ptr { id } => c
                .pointee(*id)
                .is_some_and(|p| matches!(c.types.kind(c.types.resolve(p)), TypeKind::Void)),
            _ => false,
        };
        if matches!(op, ArithOp::Add | ArithOp::Sub)
            && (is_void(self, &a.ty) || is_void(self, &b.ty))
        {
            return Err(self.incompat(&a.ty, sym, &b.ty, span));
        }
        match (op, a.ty, b.ty) {
            (ArithOp::Add, Ty::Ptr { .. }, Ty::Int { .. }) => {
                let s = step(self, &a.ty);
                let ty = a.ty;
                self.scaled(a, b, s, false, ty)
            }
            (ArithOp::Add, Ty::Int { .. }, Ty::Ptr { .. }) => {
                let s = step(self, &b.ty);
                let ty = b.ty;
                self.scaled(b, a, s, false, ty)
            }
            (ArithOp::Sub, Ty::Ptr { .. }, Ty::Int { .. }) => {
                let s = step(self, &a.ty);
                let ty = a.ty;
                self.scaled(a, b, s, true, ty)
            }
            (ArithOp::Sub, Ty::Ptr { id: x }, Ty::Ptr { id: y }) => {
                let (px, py) = (self.pointee(x), self.pointee(y));
                let same = match (px, py) {
                    (Some(p), Some(q)) => {
                        self.types.name_of(self.types.resolve(p))
                            == self.types.name_of(self.types.resolve(q))
                    }
                    _ => false,
                };
                if !same {
                    return Err(self.incompat(&a.ty, sym, &b.ty, span));
                }
                let s = step(self, &a.ty);
                let long = self.b.long;
                let d = self.arith(ArithOp::Sub, sym, retype(a, long), retype(b, long), span)?;
                let k = mk(TExprKind::Int(s as i64), long, span);
                self.arith(ArithOp::Div, "/", d, k, span)
            }
            (ArithOp::Add | ArithOp::Sub, _, _) => Err(self.incompat(&a.ty, sym, &b.ty, span)),
            (ArithOp::Mul | ArithOp::Div, _, _) => Err(Diagnostic::new(
                Tag::D_OP_ARITH,
                span,
                format!("operator {sym} requires operands of arithmetic type"),
            )),
            _ => Err(Diagnostic::new(
                Tag::D_OP_INT,
                span,
                format!("operator {sym} requires operands of integral type"),
            )),
        }
    }

    /// Whether an identifier in an index expression names a C object (pointer or
    /// array) rather than an associative array.
    pub(crate) fn names_object(&self, name: &str) -> bool {
        name.contains('`')
            || self.globals.contains_key(name)
            || self.inlines.contains_key(name)
            || self.builtin(name).is_some()
    }
}

pub(crate) fn retype_span(mut e: TExpr, span: Span) -> TExpr {
    e.span = span;
    e
}
