//! Casts, `sizeof` and `offsetof`: conversions to a named type and the sizes and
//! offsets of types as D lays them out.

use crate::check::{Checker, R};
use crate::expr::{convert, mk};
use crate::ir::*;
use crate::ptr::{retype, retype_span};
use dtrace_ctypes::{TypeId, TypeKind};
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

impl<'a> Checker<'a> {
    /// A cast `(type) e`.
    pub(crate) fn cast(&mut self, tn: &ast::TypeName, x: &ast::Expr, span: Span) -> R<TExpr> {
        let target = self.type_name(tn)?;
        let tty = self.value_ty(target);
        if let ast::ExprKind::Xlate { ty, .. } = &x.kind {
            // A translated pointer is no address: it may only be dereferenced.
            let out = self.type_name(ty)?;
            if self.value_ty(out).is_ptr() {
                return Err(Diagnostic::new(
                    Tag::D_CAST_INVAL,
                    span,
                    format!(
                        "invalid cast expression: \"pointer to translated data\" to \"{}\"",
                        self.types.name_of(target)
                    ),
                )
                .at_line_after());
            }
        }
        // An action has no value: casting its call to a type is an invalid
        // cast, which libdtrace finds (typing the cast) before it finds the
        // action called inside an expression (generating code).
        if !matches!(tty, Ty::Void) {
            if let Some(v) = self.void_call(x)? {
                return Err(self.bad_cast(&v.ty, target, span));
            }
        }
        let v = self.expr(x)?;
        if tty.is_str() {
            return match self.string_conversion(v, span) {
                Ok(s) => Ok(s),
                Err(v) => Err(self.bad_cast(&v.ty, target, span)),
            };
        }
        let v = self.decay(v);
        match (tty, v.ty) {
            (Ty::Int { .. }, Ty::Int { .. } | Ty::Ptr { .. }) => {
                Ok(retype_span(convert(v, tty), span))
            }
            (Ty::Ptr { .. }, Ty::Int { .. } | Ty::Ptr { .. }) => {
                Ok(retype_span(retype(v, tty), span))
            }
            // A string cast to a pointer is the address of its characters.
            (Ty::Ptr { .. }, Ty::Str { .. }) => Ok(mk(TExprKind::Convert(Box::new(v)), tty, span)),
            (Ty::Void, _) => Ok(retype_span(retype(v, Ty::Void), span)),
            // A struct or union cast to its own type is itself.
            (Ty::Agg { id: a, .. }, Ty::Agg { id: b, .. })
                if self.types.name_of(self.types.resolve(a))
                    == self.types.name_of(self.types.resolve(b)) =>
            {
                Ok(retype_span(v, span))
            }
            _ => Err(self.bad_cast(&v.ty, target, span)),
        }
    }

    fn bad_cast(&self, from: &Ty, to: TypeId, span: Span) -> Diagnostic {
        Diagnostic::new(
            Tag::D_CAST_INVAL,
            span,
            format!(
                "invalid cast expression: \"{}\" to \"{}\"",
                self.name(from),
                self.types.name_of(to)
            ),
        )
        .at_line_after()
    }

    /// `sizeof (type)`.
    pub(crate) fn sizeof_type(&mut self, tn: &ast::TypeName, span: Span) -> R<TExpr> {
        let id = self.type_name(tn)?;
        let size = match self.types.kind(self.types.resolve(id)) {
            TypeKind::String => self.opts.strsize as u64,
            TypeKind::Void | TypeKind::Function { .. } | TypeKind::Forward { .. } => {
                return Err(Diagnostic::new(
                    Tag::D_SIZEOF_TYPE,
                    span,
                    "cannot apply sizeof to an operand of unknown size",
                ))
            }
            _ => self.types.size_of(id, self.opts.strsize as u64),
        };
        Ok(self.size_const(size, span))
    }

    /// `sizeof expr` (the expression is typed, never evaluated).
    pub(crate) fn sizeof_expr(&mut self, x: &ast::Expr, span: Span) -> R<TExpr> {
        let v = self.expr(x)?;
        let size = match (&v.kind, v.ty) {
            (TExprKind::LoadBits { .. }, _) => {
                return Err(Diagnostic::new(
                    Tag::D_SIZEOF_BITFIELD,
                    span,
                    "cannot apply sizeof to a bit-field",
                ))
            }
            // A string constant's size is its length and the NUL, as in C.
            (TExprKind::Str(id), _) => {
                self.out.strings.get(*id as usize).map_or(0, |s| s.len()) as u64 + 1
            }
            (_, Ty::Str { .. }) => self.opts.strsize as u64,
            (_, Ty::Void) => {
                return Err(Diagnostic::new(
                    Tag::D_SIZEOF_TYPE,
                    span,
                    "cannot apply sizeof to an expression of type void",
                ))
            }
            (_, t) => t.size() as u64,
        };
        Ok(self.size_const(size, span))
    }

    fn size_const(&mut self, size: u64, span: Span) -> TExpr {
        // size_t of the data model (32 bits with -32).
        let ty = match self.types.lookup("size_t").map(|id| self.value_ty(id)) {
            Some(t @ Ty::Int { .. }) => t,
            _ => self.b.ulong,
        };
        mk(TExprKind::Int(size as i64), ty, span)
    }

    /// `offsetof(type, member)`.
    pub(crate) fn offsetof(&mut self, tn: &ast::TypeName, member: &str, span: Span) -> R<TExpr> {
        let id = self.type_name(tn)?;
        if !matches!(
            self.types.kind(self.types.resolve(id)),
            TypeKind::Struct { .. } | TypeKind::Union { .. }
        ) {
            return Err(Diagnostic::new(
                Tag::D_OFFSETOF_TYPE,
                span,
                "offsetof operand must be a struct or union type",
            ));
        }
        let Some((m, _)) = self.types.member(id, member) else {
            return Err(Diagnostic::new(
                Tag::D_UNKNOWN,
                span,
                format!("failed to determine offset of {member}: Member name not found"),
            ));
        };
        if m.bit_size != 0 {
            return Err(Diagnostic::new(
                Tag::D_OFFSETOF_BITFIELD,
                span,
                format!("cannot take offset of a bit-field: {member}"),
            ));
        }
        Ok(self.size_const(m.bit_offset / 8, span))
    }
}
