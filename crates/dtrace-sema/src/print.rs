//! The `print()` action: the value's type described member by member
//! ([`PrintShape`]) so the consumer can print the recorded bytes structurally.
//!
//! Integers and pointers are recorded by value, strings as strings, and structs,
//! unions and arrays (kernel objects, or whole translations built in scratch) by
//! copying their bytes. `char *` members are printed as addresses: only the
//! object's own bytes are recorded.

use crate::check::{Checker, R};
use crate::ir::*;
use dtrace_ctypes::{TypeId, TypeKind};
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Deepest type nesting described; deeper members are opaque.
const MAX_SHAPE_DEPTH: u32 = 32;

/// Largest object `print()` records, in bytes.
pub(crate) const MAX_PRINT: u32 = 32 * 1024;

impl<'a> Checker<'a> {
    /// `print(expr)`.
    pub(crate) fn print_action(&mut self, args: &[ast::Expr], span: Span) -> R<TStmt> {
        let [arg] = args else {
            return Err(Diagnostic::new(
                Tag::D_PROTO_LEN,
                span,
                format!(
                    "print( ) prototype mismatch: {} arg{}passed, 1 expected",
                    args.len(),
                    if args.len() == 1 { " " } else { "s " }
                ),
            ));
        };
        if let ast::ExprKind::Agg(_) = &arg.kind {
            return Err(Diagnostic::new(
                Tag::D_TRACE_DYN,
                arg.span,
                "print( ) may not be applied to a dynamic expression",
            ));
        }
        let v = self.expr(arg)?;
        // A pointer to a struct or union prints its address and the object
        // it points to (DTrace 2.x): both are recorded.
        if let Some(target) = v.ty.type_id().and_then(|p| self.print_target(&v.ty, p)) {
            let size = self
                .types
                .size_of(self.types.resolve(target), self.opts.strsize as u64);
            if size == 0 {
                return Err(Diagnostic::new(
                    Tag::D_PRINT_SIZE,
                    v.span,
                    format!(
                        "print( ) argument #1 reference has type '{}' with size 0; cannot print( ) it.",
                        self.types.name_of(target)
                    ),
                ));
            }
            if size > MAX_PRINT as u64 {
                return Err(Diagnostic::new(
                    Tag::D_PRINT_SIZE,
                    v.span,
                    format!(
                        "print( ) cannot record an object of type {} ({size} bytes; at most {MAX_PRINT})",
                        self.types.name_of(target)
                    ),
                ));
            }
            let span = v.span;
            let object = self.place(v.clone(), target, span)?;
            let shape = self.shape(target, 0);
            return Ok(TStmt::Print {
                value: object,
                shape,
                addr: Some(v),
            });
        }
        let shape = match v.ty {
            Ty::Void | Ty::Stack { .. } => {
                return Err(Diagnostic::new(
                    Tag::D_TRACE_VOID,
                    v.span,
                    "print( ) may not be applied to a void expression",
                ))
            }
            Ty::Str { cap } => PrintShape::String { size: cap },
            Ty::Int { id, .. } | Ty::Ptr { id } => self.shape(id, 0),
            Ty::Agg { id, size } => {
                if size == 0 || size > MAX_PRINT {
                    return Err(Diagnostic::new(
                        Tag::D_DECL_INCOMPLETE,
                        v.span,
                        format!(
                            "print( ) cannot record an object of type {} ({size} bytes; at most {MAX_PRINT})",
                            self.name(&v.ty)
                        ),
                    ));
                }
                self.shape(id, 0)
            }
        };
        Ok(TStmt::Print {
            value: v,
            shape,
            addr: None,
        })
    }

    /// The struct or union a pointer-typed `print()` argument points to.
    fn print_target(&self, ty: &Ty, ptr: TypeId) -> Option<TypeId> {
        if !matches!(ty, Ty::Ptr { .. }) {
            return None;
        }
        let target = self.pointee(ptr)?;
        match self.types.kind(self.types.resolve(target)) {
            TypeKind::Struct { .. } | TypeKind::Union { .. } => Some(target),
            _ => None,
        }
    }

    fn shape(&self, id: TypeId, depth: u32) -> PrintShape {
        let name = self.types.name_of(id);
        let r = self.types.resolve(id);
        let size = self.types.size_of(r, self.opts.strsize as u64);
        let opaque = |name: String| PrintShape::Opaque {
            name,
            size: size.min(u32::MAX as u64) as u32,
        };
        if depth >= MAX_SHAPE_DEPTH {
            return opaque(name);
        }
        match self.types.kind(r) {
            TypeKind::Int { size, signed, .. } if matches!(size, 1 | 2 | 4 | 8) => {
                PrintShape::Int {
                    name,
                    size: *size as u8,
                    signed: *signed,
                }
            }
            TypeKind::Pointer { .. } => PrintShape::Pointer { name },
            TypeKind::Enum { size, values, .. } if matches!(size, 1 | 2 | 4 | 8) => {
                PrintShape::Enum {
                    name,
                    size: *size as u8,
                    values: values.iter().map(|e| (e.name.clone(), e.value)).collect(),
                }
            }
            TypeKind::Array { elem, len } => PrintShape::Array {
                name,
                elem: Box::new(self.shape(*elem, depth + 1)),
                len: (*len).min(u32::MAX as u64) as u32,
                stride: self.types.size_of(*elem, 0).min(u32::MAX as u64) as u32,
            },
            TypeKind::Struct { members, .. } | TypeKind::Union { members, .. } => {
                PrintShape::Struct {
                    name,
                    members: members
                        .iter()
                        .map(|m| PrintField {
                            name: m.name.clone(),
                            bit_offset: m.bit_offset,
                            bit_size: m.bit_size,
                            ty: self.shape(m.ty, depth + 1),
                        })
                        .collect(),
                }
            }
            TypeKind::String => PrintShape::String {
                size: self.opts.str_cap(),
            },
            _ => opaque(name),
        }
    }
}
