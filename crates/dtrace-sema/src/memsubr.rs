//! The memory subroutines: `alloca`, `bcopy`, `copyin`, `copyinstr`, `copyinto`,
//! `copyout` and `copyoutstr`, with DTrace's prototypes and argument checks, and
//! the tracking of *alloca pointers* (pointers into the clause's scratch space).
//!
//! Scratch space ("Actions and Subroutines", `alloca()`): each clause may allocate
//! up to `scratchsize` bytes; the memory is released when the clause ends. Stores
//! through pointers are only possible into it. A pointer is an alloca pointer when
//! it comes from `alloca`/`copyin`, from pointer arithmetic on one, or from a
//! variable that holds one; a cast to an integer type ends that. Loads through an
//! alloca pointer are bounds-checked against the allocated space; `bcopy` and
//! `copyinto` only write to alloca pointers (checked here, as DTrace does).
//! A variable holds either alloca pointers or other pointers, never both
//! (`D_ALLOCA_INCOMPAT`).

use crate::check::{Checker, R};
use crate::expr::{convert, mk};
use crate::ir::*;
use crate::proto::len_mismatch as proto_len;
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

/// The subroutines this module types.
const SUBRS: &[&str] = &[
    "alloca",
    "bcopy",
    "copyin",
    "copyinstr",
    "copyinto",
    "copyout",
    "copyoutstr",
];

pub(crate) fn is_mem_subr(name: &str) -> bool {
    SUBRS.contains(&name)
}

/// A parameter's kind in a prototype.
#[derive(Clone, Copy)]
enum Param {
    /// `size_t`: any integer.
    Size,
    /// `uintptr_t`: an integer or pointer (an address).
    Addr,
    /// `void *`: a pointer, array or string (its address).
    Ptr,
    /// `void *` that must be an alloca pointer.
    AllocaPtr,
    /// `string`: a string, or a pointer to one.
    Str,
}

impl Param {
    fn name(self) -> &'static str {
        match self {
            Param::Size => "size_t",
            Param::Addr => "uintptr_t",
            Param::Ptr => "void *",
            Param::AllocaPtr => "alloca pointer",
            Param::Str => "string",
        }
    }
}

/// Whether `e` is the null pointer constant (compatible with any pointer).
fn is_null(e: &TExpr) -> bool {
    matches!(e.kind, TExprKind::Int(0))
}

impl<'a> Checker<'a> {
    /// A call of one of the memory subroutines.
    pub(crate) fn mem_subr(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TExpr> {
        use Param::*;
        let (params, optional): (&[Param], usize) = match func {
            "alloca" => (&[Size], 0),
            "bcopy" => (&[Ptr, AllocaPtr, Size], 0),
            "copyin" => (&[Addr, Size], 0),
            "copyinstr" => (&[Addr, Size], 1),
            "copyinto" => (&[Addr, Size, AllocaPtr], 0),
            "copyout" => (&[Ptr, Addr, Size], 0),
            _ => (&[Str, Addr, Size], 0),
        };
        let min = params.len() - optional;
        if args.len() < min || args.len() > params.len() {
            let expected = match (optional, args.len() < min) {
                (0, _) => params.len().to_string(),
                (_, true) => format!("at least {min}"),
                (_, false) => format!("at most {}", params.len()),
            };
            return Err(proto_len(func, args.len(), &expected, span));
        }
        let mut vals = Vec::new();
        for (i, (a, p)) in args.iter().zip(params).enumerate() {
            vals.push(self.mem_arg(func, i + 1, *p, a)?);
        }
        let mut it = vals.into_iter().map(Box::new);
        let mut next = || {
            it.next()
                .ok_or_else(|| Diagnostic::new(Tag::D_PROTO_LEN, span, "internal: arity"))
        };
        let void_ptr = Ty::Ptr {
            id: self.types.pointer_to(self.b.void_id),
        };
        match func {
            "alloca" => {
                let size = next()?;
                self.check_scratch_size(&size)?;
                Ok(mk(TExprKind::Alloca(size), void_ptr, span))
            }
            "copyin" => {
                let addr = next()?;
                let size = next()?;
                self.check_scratch_size(&size)?;
                Ok(mk(TExprKind::CopyIn { addr, size }, void_ptr, span))
            }
            "copyinstr" => {
                let addr = next()?;
                let max = next().ok();
                let ty = Ty::Str {
                    cap: self.opts.str_cap(),
                };
                Ok(mk(TExprKind::CopyInStr { addr, max }, ty, span))
            }
            "copyinto" => {
                let (addr, size, dest) = (next()?, next()?, next()?);
                Ok(mk(TExprKind::CopyInto { addr, size, dest }, Ty::Void, span))
            }
            "bcopy" => {
                let (src, dest, size) = (next()?, next()?, next()?);
                let src_scratch = self.is_scratch(&src);
                let k = TExprKind::Bcopy {
                    src,
                    dest,
                    size,
                    src_scratch,
                };
                Ok(mk(k, Ty::Void, span))
            }
            _ => {
                let (src, addr, size) = (next()?, next()?, next()?);
                let string = func == "copyoutstr";
                let k = TExprKind::CopyOut {
                    src,
                    addr,
                    size,
                    string,
                };
                Ok(mk(k, Ty::Void, span))
            }
        }
    }

    /// A constant allocation larger than the whole scratch space is refused at
    /// compile time.
    fn check_scratch_size(&self, size: &TExpr) -> R<()> {
        match crate::expr::const_value(size) {
            Some(n) if n as u64 > self.opts.scratchsize as u64 => Err(Diagnostic::new(
                Tag::D_ALLOCA_SIZE,
                size.span,
                format!(
                    "size {} exceeds the scratch space size ({} bytes, option scratchsize)",
                    n as u64, self.opts.scratchsize
                ),
            )),
            _ => Ok(()),
        }
    }

    fn mem_arg(&mut self, func: &str, n: usize, p: Param, a: &ast::Expr) -> R<TExpr> {
        let v = self.expr(a)?;
        let v = self.decay(v);
        let bad = |v: &TExpr, what: String| {
            Diagnostic::new(
                Tag::D_PROTO_ARG,
                v.span,
                format!(
                    "{func}( ) argument #{n} is incompatible with prototype:\n\tprototype: {}\n\t argument: {what}",
                    p.name()
                ),
            )
        };
        let ulong = self.b.ulong;
        match (p, v.ty) {
            (Param::Size, Ty::Int { .. }) => Ok(convert(v, ulong)),
            (Param::Addr, Ty::Int { .. }) => Ok(convert(v, ulong)),
            (Param::Addr, Ty::Ptr { .. }) => Ok(crate::ptr::retype(v, ulong)),
            (Param::Ptr, Ty::Ptr { .. } | Ty::Str { .. }) => Ok(v),
            (Param::Str, Ty::Str { .. }) => Ok(v),
            (Param::Str, Ty::Ptr { .. }) => match self.string_of(v) {
                Ok(s) => Ok(s),
                Err(v) => Ok(v),
            },
            (Param::AllocaPtr, Ty::Ptr { .. }) if self.is_scratch(&v) => Ok(v),
            (Param::AllocaPtr, Ty::Ptr { .. }) => Err(bad(&v, "non-alloca pointer".to_string())),
            _ => {
                let what = self.name(&v.ty);
                Err(bad(&v, what))
            }
        }
    }

    /// Whether `e` evaluates to an alloca pointer (see the module comment).
    pub(crate) fn is_scratch(&self, e: &TExpr) -> bool {
        match &e.kind {
            TExprKind::Alloca(_) | TExprKind::CopyIn { .. } => true,
            TExprKind::Var(v) => self.alloca_vars.get(v).copied().unwrap_or(false),
            TExprKind::Arith {
                op: ArithOp::Add | ArithOp::Sub,
                lhs,
                ..
            } => self.is_scratch(lhs),
            TExprKind::Ternary { then, els, .. } => {
                let (a, b) = (self.is_scratch(then), self.is_scratch(els));
                (a || is_null(then)) && (b || is_null(els)) && (a || b)
            }
            TExprKind::Comma(_, r) | TExprKind::NotNull(r) => self.is_scratch(r),
            TExprKind::Assign { lv, rhs, .. } => match lv {
                LValue::Var(v) => self.alloca_vars.get(v).copied().unwrap_or(false),
                _ => self.is_scratch(rhs),
            },
            _ => false,
        }
    }

    /// Record what kind of pointer the variable `lv` receives from `r`, refusing
    /// to mix alloca and other pointers in one variable.
    pub(crate) fn note_alloca_store(&mut self, lv: &LValue, r: &TExpr, span: Span) -> R<()> {
        let LValue::Var(v) = lv else {
            return Ok(());
        };
        if !r.ty.is_ptr() || is_null(r) {
            return Ok(());
        }
        if let TExprKind::Ternary { then, els, .. } = &r.kind {
            let (a, b) = (self.is_scratch(then), self.is_scratch(els));
            let mixed = (a && !b && !is_null(els)) || (b && !a && !is_null(then));
            if mixed {
                return Err(Diagnostic::new(
                    Tag::D_ALLOCA_INCOMPAT,
                    span,
                    "ternary conditional with alloca and non-alloca branches cannot be assigned to a variable",
                ));
            }
        }
        let scratch = self.is_scratch(r);
        match self.alloca_vars.get(v) {
            Some(&was) if was != scratch => {
                let name = match v {
                    VarRef::Global(i) => self.out.globals.get(*i as usize),
                    VarRef::Thread(i) => self.out.thread_vars.get(*i as usize),
                    VarRef::Clause(i) => self.out.clause_vars.get(*i as usize),
                }
                .map(|v| v.name.clone())
                .unwrap_or_default();
                Err(Diagnostic::new(
                    Tag::D_ALLOCA_INCOMPAT,
                    span,
                    format!(
                        "{name}: cannot reuse the same identifier for both alloca and non-alloca allocations"
                    ),
                ))
            }
            _ => {
                self.alloca_vars.insert(*v, scratch);
                Ok(())
            }
        }
    }

    /// Whether the assignment target `e` is memory reached through a pointer
    /// held in a D variable (`*p`, `p->m`, `p[i]`, and members of those), which
    /// D lets a program write: writability comes from the variable, as in
    /// DTrace, so memory reached from `curthread`, `args[]` or a cast is not a
    /// place. Whether the address is writable scratch memory is checked when
    /// the store runs.
    pub(crate) fn is_mem_place(&self, e: &ast::Expr) -> bool {
        use ast::ExprKind as K;
        match &e.kind {
            K::Unary {
                op: ast::UnOp::Deref,
                expr,
            } => self.writable_root(expr),
            K::Member { base, arrow, .. } => {
                (*arrow && self.writable_root(base)) || self.is_mem_place(base)
            }
            K::Index { base, .. } => match &base.kind {
                K::Ident(name) => {
                    let ptr = self
                        .globals
                        .get(name)
                        .and_then(|i| self.out.globals.get(*i as usize))
                        .is_some_and(|v| v.ty.is_ptr());
                    ptr && !self.arrays.contains_key(name)
                }
                K::Agg(_) => false,
                // `self->a[k]` / `this->a[k]`: memory only when the variable is
                // a pointer; otherwise an associative array element.
                K::SelfVar(name) => self
                    .thread
                    .get(name)
                    .and_then(|i| self.out.thread_vars.get(*i as usize))
                    .is_some_and(|v| v.ty.is_ptr()),
                K::ThisVar(name) => self
                    .clause
                    .get(name)
                    .and_then(|i| self.out.clause_vars.get(*i as usize))
                    .is_some_and(|v| v.ty.is_ptr()),
                _ => self.writable_root(base) || self.is_mem_place(base),
            },
            _ => false,
        }
    }

    /// A pointer value read from a D variable, or from a place reached through
    /// one.
    fn writable_root(&self, e: &ast::Expr) -> bool {
        use ast::ExprKind as K;
        match &e.kind {
            K::Ident(name) => self.globals.contains_key(name),
            K::ThisVar(_) | K::SelfVar(_) => true,
            K::Index { base, .. } => match &base.kind {
                K::Ident(name) => self.arrays.contains_key(name) || self.globals.contains_key(name),
                _ => self.writable_root(base),
            },
            K::Member { base, .. } => self.writable_root(base),
            K::Unary {
                op: ast::UnOp::Deref,
                expr,
            } => self.writable_root(expr),
            _ => false,
        }
    }

    /// The lvalue of a store through a pointer, and the stored type.
    pub(crate) fn mem_lvalue(&mut self, e: &ast::Expr, sym: &str) -> R<(LValue, Ty)> {
        let v = self.expr(e)?;
        match v.kind {
            TExprKind::Load(addr) | TExprKind::LoadScratch(addr) => Ok((LValue::Mem(addr), v.ty)),
            _ => Err(Diagnostic::new(
                Tag::D_OP_WRITE,
                e.span,
                format!("operator {sym} can only be applied to a writable variable"),
            )),
        }
    }
}
