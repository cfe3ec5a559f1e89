//! Top-level declarations: `struct`/`union`/`enum` definitions, `typedef`, variable
//! declarations with their storage class (`int x;`, `self int y;`, `this string s;`,
//! `int a[string, int];`), `inline` constants and expressions.
//!
//! Type definitions go into the shared [`dtrace_ctypes::TypeTable`], which outlives
//! one check (the facade checks a program again before code generation, and later
//! programs see earlier types): defining a type exactly as it is already defined is
//! therefore accepted; a different definition is a redeclaration error.

use crate::check::{Checker, R};
use crate::expr::{const_value, convert};
use crate::ir::*;
use dtrace_ctypes::{Enumerator, LayoutError, TypeId, TypeKind};
use dtrace_syntax::ast::{self, ArrayDim, Declarator, MemberDecl};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// The identifier a declarator declares.
pub(crate) fn declared_name(d: &Declarator) -> Option<(&str, Span)> {
    match d {
        Declarator::Abstract => None,
        Declarator::Ident(n, s) => Some((n, *s)),
        Declarator::Pointer { inner, .. }
        | Declarator::Array { inner, .. }
        | Declarator::Function { inner, .. } => declared_name(inner),
    }
}

/// An `inline` definition: its declared type and the expression it stands for.
#[derive(Debug, Clone)]
pub(crate) struct Inline {
    pub ty: Ty,
    pub expr: ast::Expr,
    /// The parameters of an inline written as an array (`inline fileinfo_t
    /// fds[int fd] = ...;`), by name and type; empty for a plain inline.
    pub params: Vec<(String, Ty)>,
}

/// A layout error, placed on the member it names when there is one.
fn layout_error(e: LayoutError, span: Span, members: &[MemberDecl]) -> Diagnostic {
    let (tag, member) = match &e {
        LayoutError::Incomplete { member, ty } if ty == "void" => {
            (Tag::D_DECL_VOIDOBJ, Some(member))
        }
        LayoutError::Incomplete { member, .. } => (Tag::D_DECL_INCOMPLETE, Some(member)),
        LayoutError::Redefined { .. } => (Tag::D_DECL_TYPERED, None),
        LayoutError::DuplicateMember { member } => (Tag::D_UNKNOWN, Some(member)),
        LayoutError::BitfieldType { member, .. } => (Tag::D_DECL_BFTYPE, Some(member)),
        LayoutError::BitfieldWidth { member, .. } => (Tag::D_DECL_BFSIZE, Some(member)),
        LayoutError::NamedZeroWidth { member } => (Tag::D_DECL_BFCONST, Some(member)),
        LayoutError::TooLarge => (Tag::D_TYPE_ERR, None),
    };
    // dtrace(1)'s wording for bit-field errors (libdtrace's dt_decl_member):
    // an unnamed member is "(anon)".
    let idname = match member.map(String::as_str) {
        Some("") | None => "(anon)",
        Some(m) => m,
    };
    let message = match &e {
        LayoutError::BitfieldType { .. } => format!("invalid type for bit-field: {idname}"),
        LayoutError::BitfieldWidth { .. } => format!("bit-field too big for type: {idname}"),
        LayoutError::NamedZeroWidth { .. } => BFCONST_MSG.to_string(),
        LayoutError::Incomplete { ty, .. } if ty == "void" => {
            format!("cannot have void object: {idname}")
        }
        // libdtrace passes on libctf's error.
        LayoutError::DuplicateMember { .. } => {
            format!("failed to define member '{idname}': Duplicate member or variable name")
        }
        _ => e.to_string(),
    };
    let at = member
        .and_then(|m| {
            members.iter().rev().find(|d| match declared_name(&d.decl) {
                Some((n, _)) => n == m.as_str(),
                // An unnamed member (bit-field padding) is named "".
                None => m.is_empty(),
            })
        })
        .map(|d| d.span)
        .unwrap_or(span);
    Diagnostic::new(tag, at, message)
}

/// dtrace(1)'s message for a bit-field width that is not a positive constant.
const BFCONST_MSG: &str = "positive integral constant expression expected as bit-field size";

/// `struct tag` / `union tag` written without members and without scope.
fn forward_tag(base: &ast::BaseType) -> Option<(&'static str, &str)> {
    match base {
        ast::BaseType::Struct {
            tag: Some(t),
            members: None,
        } if !t.contains('`') => Some(("struct", t.as_str())),
        ast::BaseType::Union {
            tag: Some(t),
            members: None,
        } if !t.contains('`') => Some(("union", t.as_str())),
        _ => None,
    }
}

impl<'a> Checker<'a> {
    /// A top-level declaration.
    pub(crate) fn declaration(&mut self, d: &ast::Decl) -> R<()> {
        let storage = d.spec.storage.as_deref();
        if d.declarators.is_empty() {
            if let Some((kw, tag)) = forward_tag(&d.spec.base) {
                // `struct s;` declares an incomplete D type, hiding any kernel type of
                // that name, as a C declaration in an inner scope does.
                if self.types.lookup_tag(kw, tag).is_none() {
                    let f = self.types.add(TypeKind::Forward {
                        name: tag.to_string(),
                        is_union: kw == "union",
                    });
                    self.types.bind_tag(kw, tag, f);
                }
                return Ok(());
            }
        }
        // `extern int;`: nothing declared (a struct, union or enum alone
        // declares its tag).
        let declares_tag = matches!(
            d.spec.base,
            ast::BaseType::Struct { .. } | ast::BaseType::Union { .. } | ast::BaseType::Enum { .. }
        );
        if d.declarators.is_empty() && !declares_tag {
            return Err(Diagnostic::new(
                Tag::D_DECL_USELESS,
                d.span,
                "useless declaration",
            ));
        }
        let base = self.spec_type(&d.spec, d.span)?;
        for (decl, init) in &d.declarators {
            let Some((name, nspan)) = declared_name(decl) else {
                continue;
            };
            match storage {
                Some("typedef") => self.typedef(name, base, decl, nspan, d.in_include)?,
                Some("inline") => self.inline(name, base, decl, init.as_ref(), nspan)?,
                Some("extern") => {}
                Some("self") | Some("this") | Some("static") | None => {
                    self.variable(storage, name, base, decl, nspan)?
                }
                Some("register" | "auto") => {
                    return Err(Diagnostic::new(
                        Tag::D_DECL_BADCLASS,
                        d.span,
                        "specified storage class not appropriate in D",
                    ))
                }
                Some(other) => {
                    return Err(Diagnostic::new(
                        Tag::D_DECL_USELESS,
                        d.span,
                        format!("storage class {other} is not supported here"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// A typedef. As in libdtrace, one made in an `#include`d file belongs to
    /// the "C" scope and one in the program to the "D" scope: a header may
    /// name a type D predefines (`<stdint.h>`'s `int64_t`), which it then
    /// shadows, as libdtrace finds "C" names first; a name already declared
    /// in the same scope may only be declared again with the same type.
    fn typedef(
        &mut self,
        name: &str,
        base: TypeId,
        decl: &Declarator,
        span: Span,
        in_include: bool,
    ) -> R<()> {
        let target = self.apply_declarator(base, decl, span)?;
        let shadows = in_include && !self.c_typedefs.contains(name);
        if in_include {
            self.c_typedefs.insert(name.to_string());
        }
        if let Some(old) = self.types.lookup(name).filter(|_| !shadows) {
            let same = self.types.name_of(self.types.resolve(old))
                == self.types.name_of(self.types.resolve(target));
            if same {
                return Ok(());
            }
            return Err(Diagnostic::new(
                Tag::D_DECL_IDRED,
                span,
                format!("typedef redeclared: {name}"),
            ));
        }
        let id = self.types.add(TypeKind::Typedef {
            name: name.to_string(),
            target,
        });
        self.types.bind(name, id);
        Ok(())
    }

    pub(crate) fn taken(&self, name: &str) -> bool {
        self.globals.contains_key(name)
            || self.arrays.contains_key(name)
            || self.inlines.contains_key(name)
            || self.builtin(name).is_some()
            || crate::strfn::lookup(name).is_some()
    }

    pub(crate) fn redeclared(name: &str, span: Span) -> Diagnostic {
        Diagnostic::new(
            Tag::D_DECL_IDRED,
            span,
            format!("identifier redeclared: {name}"),
        )
    }

    /// An inline's value, which it must have, under a name not yet taken.
    fn inline_init<'e>(
        &self,
        name: &str,
        init: Option<&'e ast::Expr>,
        span: Span,
    ) -> R<&'e ast::Expr> {
        let Some(init) = init else {
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                span,
                format!("inline {name} must be given a value"),
            ));
        };
        if self.taken(name) {
            return Err(Self::redeclared(name, span));
        }
        Ok(init)
    }

    fn inline(
        &mut self,
        name: &str,
        base: TypeId,
        decl: &Declarator,
        init: Option<&ast::Expr>,
        span: Span,
    ) -> R<()> {
        if let Declarator::Array {
            inner,
            dim: ArrayDim::Assoc(keys),
        } = decl
        {
            let init = self.inline_init(name, init, span)?;
            return self.param_inline(name, base, inner, keys, init, span);
        }
        let declared = self.apply_declarator(base, decl, span)?;
        let ty = self.value_ty(declared);
        let init = self.inline_init(name, init, span)?;
        // Check it now, so errors point at the definition.
        if let Some(r) = self.xlate_inline(name, declared, init, span) {
            r?;
        } else {
            let v = self.expr(init)?;
            self.inline_value(name, ty, v, span)?;
        }
        self.inlines.insert(
            name.to_string(),
            Inline {
                ty,
                expr: init.clone(),
                params: Vec::new(),
            },
        );
        Ok(())
    }

    /// An inline's value converted to its declared type.
    pub(crate) fn inline_value(&mut self, name: &str, ty: Ty, v: TExpr, span: Span) -> R<TExpr> {
        let v = match ty {
            Ty::Str { .. } => self.string_of(v).ok(),
            Ty::Int { .. } if v.ty.is_int() => Some(convert(v, ty)),
            Ty::Ptr { .. } if v.ty.is_int_or_ptr() => Some(crate::ptr::retype(v, ty)),
            Ty::Agg { .. } if matches!(v.kind, TExprKind::Build { .. }) && v.ty.same_repr(&ty) => {
                Some(v)
            }
            // A struct or union of the same type (an inline naming a variable).
            Ty::Agg { id: a, .. } => match v.ty {
                Ty::Agg { id: b, .. }
                    if self.types.name_of(self.types.resolve(a))
                        == self.types.name_of(self.types.resolve(b)) =>
                {
                    Some(v)
                }
                _ => None,
            },
            _ => None,
        };
        v.ok_or_else(|| {
            Diagnostic::new(
                Tag::D_OP_INCOMPAT,
                span,
                format!(
                    "inline {name} definition uses incompatible types: \"{}\"",
                    self.name(&ty)
                ),
            )
        })
    }

    /// Use of an inline: its expression typed here (so `arg0`, `probefunc` and the
    /// like mean this clause's), converted to the declared type.
    pub(crate) fn inline_use(&mut self, name: &str, span: Span) -> Option<R<TExpr>> {
        let inl = self.inlines.get(name)?.clone();
        if !inl.params.is_empty() {
            return Some(Err(Diagnostic::new(
                Tag::D_IDENT_BADREF,
                span,
                format!("{name} is an inline with parameters: use {name}[ ] with its arguments"),
            )));
        }
        Some(self.expr(&inl.expr).and_then(|v| {
            let mut v = self.inline_value(name, inl.ty, v, span)?;
            v.span = span;
            Ok(v)
        }))
    }

    fn variable(
        &mut self,
        storage: Option<&str>,
        name: &str,
        base: TypeId,
        decl: &Declarator,
        span: Span,
    ) -> R<()> {
        if let Declarator::Array {
            inner,
            dim: ArrayDim::Assoc(keys),
        } = decl
        {
            // DTrace: "associative arrays may not be declared as local variables"
            // (`this int a[int];`), D_DECL_LOCASSC.
            if storage == Some("this") {
                return Err(Diagnostic::new(
                    Tag::D_DECL_LOCASSC,
                    span,
                    format!("associative arrays may not be declared as local variables: {name}"),
                ));
            }
            let thread = storage == Some("self");
            if storage.is_some() && storage != Some("static") && !thread {
                return Err(Diagnostic::new(
                    Tag::D_DECL_USELESS,
                    span,
                    format!(
                        "associative array {name} may not be declared {}",
                        storage.unwrap_or("")
                    ),
                ));
            }
            let vt = self.apply_declarator(base, inner, span)?;
            let value = self.storage_type(name, vt, span, true)?;
            let mut kt = Vec::new();
            // A thread-local array (`self int a[int];`) is keyed by the thread first.
            if thread {
                if let Some((_, tid)) = self.builtin("tid") {
                    kt.push(tid);
                }
            }
            for (i, k) in keys.iter().enumerate() {
                let id = self.type_name(k)?;
                if matches!(self.types.kind(self.types.resolve(id)), TypeKind::Void) {
                    return Err(Diagnostic::new(
                        Tag::D_DECL_PROTO_TYPE,
                        span,
                        format!(
                            "array prototype may not use parameter of type void: (anonymous), parameter #{}",
                            i + 1
                        ),
                    ));
                }
                let t = self.storage_type(name, id, k.span, false)?;
                kt.push(t);
            }
            let full = if thread {
                crate::vars::thread_array_name(name)
            } else {
                name.to_string()
            };
            let clash = if thread {
                self.thread.contains_key(name) || self.arrays.contains_key(&full)
            } else {
                self.taken(name)
            };
            if clash {
                return Err(Self::redeclared(name, span));
            }
            let a = self.out.arrays.len() as u32;
            self.out.arrays.push(ArrayInfo {
                name: full.clone(),
                keys: kt,
                value,
                ckind: CKind::Unknown,
            });
            self.arrays.insert(full, a);
            return Ok(());
        }
        let id = self.apply_declarator(base, decl, span)?;
        let ty = self.storage_type(name, id, span, true)?;
        match storage {
            Some("self") => {
                if self.thread.contains_key(name)
                    || self
                        .arrays
                        .contains_key(&crate::vars::thread_array_name(name))
                {
                    return Err(Self::redeclared(name, span));
                }
                self.new_thread(name, ty, span);
            }
            Some("this") => {
                if self.clause.contains_key(name) {
                    return Err(Self::redeclared(name, span));
                }
                self.new_clause(name, ty, span);
            }
            _ => {
                if self.taken(name) {
                    return Err(Self::redeclared(name, span));
                }
                self.new_global(name, ty, span);
            }
        }
        Ok(())
    }

    /// The type a variable of C type `id` is stored as; `whole`: structs, unions
    /// and arrays may be (variables and associative-array values; not keys).
    fn storage_type(&mut self, name: &str, id: TypeId, span: Span, whole: bool) -> R<Ty> {
        match self.value_ty(id) {
            t @ Ty::Agg { size, .. } if whole && size > 0 && size <= crate::ptr::MAX_AGG_VAR => {
                Ok(t)
            }
            Ty::Void => Err(Diagnostic::new(
                Tag::D_DECL_VOIDOBJ,
                span,
                format!("cannot have void object: {name}"),
            )),
            Ty::Agg { .. } => Err(Diagnostic::new(
                Tag::D_VAR_UNSUP,
                span,
                format!(
                    "variables of type {} are not supported yet: {name}",
                    self.types.name_of(id)
                ),
            )),
            t => Ok(t),
        }
    }

    /// `struct tag { ... }` / `union tag { ... }`: define (or find the identical
    /// earlier definition).
    pub(crate) fn define_sou(
        &mut self,
        kw: &str,
        tag: Option<&str>,
        members: &[MemberDecl],
        span: Span,
    ) -> R<TypeId> {
        if tag.is_some_and(|t| t.contains('`')) {
            return Err(Diagnostic::new(
                Tag::D_DECL_USELESS,
                span,
                "a scoped type name cannot be defined in D",
            ));
        }
        let is_union = kw == "union";
        let existing = tag.and_then(|t| self.types.lookup_tag(kw, t));
        if let (None, Some(t)) = (existing, tag) {
            // A forward declaration first, so members may point to the type itself.
            let f = self.types.add(TypeKind::Forward {
                name: t.to_string(),
                is_union,
            });
            self.types.bind_tag(kw, t, f);
        }
        let mut ms: Vec<(String, TypeId, Option<u32>)> = Vec::new();
        for m in members {
            let base = self.spec_type(&m.spec, m.span)?;
            let ty = self.apply_declarator(base, &m.decl, m.span)?;
            let name = declared_name(&m.decl)
                .map(|(n, _)| n.to_string())
                .unwrap_or_default();
            let width = match &m.bitfield {
                None => None,
                Some(e) => {
                    let v = self.expr(e)?;
                    match const_value(&v).filter(|_| v.ty.is_int()) {
                        // The layout checks the width against the member's type.
                        Some(w) if (0..=i64::from(u32::MAX)).contains(&w) => Some(w as u32),
                        _ => return Err(Diagnostic::new(Tag::D_DECL_BFCONST, e.span, BFCONST_MSG)),
                    }
                }
            };
            ms.push((name, ty, width));
        }
        if let Some(old) = existing {
            if !matches!(self.types.kind(old), TypeKind::Forward { .. }) {
                return self.same_sou(kw, tag.unwrap_or(""), old, &ms, is_union, span);
            }
        }
        let strsize = self.member_strsize();
        let r = if is_union {
            self.types.define_union_strsize(tag, &ms, strsize)
        } else {
            self.types.define_struct_strsize(tag, &ms, strsize)
        };
        r.map_err(|e| layout_error(e, span, members))
    }

    /// Bytes a `string` member of a D struct or union takes (`strsize`).
    pub(crate) fn member_strsize(&self) -> u64 {
        u64::from(self.opts.str_member_size())
    }

    /// An already complete `kw tag`: accept an identical definition.
    fn same_sou(
        &mut self,
        kw: &str,
        tag: &str,
        old: TypeId,
        ms: &[(String, TypeId, Option<u32>)],
        is_union: bool,
        span: Span,
    ) -> R<TypeId> {
        let strsize = self.member_strsize();
        let laid = if is_union {
            dtrace_ctypes::layout_union_strsize(self.types, ms, strsize)
        } else {
            dtrace_ctypes::layout_struct_strsize(self.types, ms, strsize)
        }
        .map_err(|e| layout_error(e, span, &[]))?;
        let same = match self.types.kind(old) {
            TypeKind::Struct { size, members, .. } | TypeKind::Union { size, members, .. } => {
                *size == laid.0
                    && members.len() == laid.2.len()
                    && members.iter().zip(laid.2.iter()).all(|(a, b)| {
                        a.name == b.name
                            && a.bit_offset == b.bit_offset
                            && a.bit_size == b.bit_size
                            && self.types.name_of(a.ty) == self.types.name_of(b.ty)
                    })
            }
            _ => false,
        };
        if same {
            Ok(old)
        } else {
            Err(Diagnostic::new(
                Tag::D_DECL_TYPERED,
                span,
                format!("type redeclared: {kw} {tag}"),
            ))
        }
    }

    /// `enum tag { A, B = 5, ... }`.
    pub(crate) fn define_enum(
        &mut self,
        tag: Option<&str>,
        values: &[(String, Option<ast::Expr>, Span)],
        span: Span,
    ) -> R<TypeId> {
        let mut vals = Vec::new();
        let outer = std::mem::take(&mut self.enum_pending);
        let mut next: i64 = 0;
        for (name, e, espan) in values {
            let v = match e {
                None => next,
                Some(e) => {
                    let t = self.expr(e)?;
                    const_value(&t).filter(|_| t.ty.is_int()).ok_or_else(|| {
                        Diagnostic::new(
                            Tag::D_DECL_ENCONST,
                            *espan,
                            format!(
                                "enumerator '{name}' must be assigned to an integral constant expression"
                            ),
                        )
                    })?
                }
            };
            if v < i32::MIN as i64 || v > i32::MAX as i64 {
                return Err(Diagnostic::new(
                    Tag::D_DECL_ENOFLOW,
                    *espan,
                    format!("enumerator '{name}' value overflows INT_MAX ({})", i32::MAX),
                ));
            }
            if vals.iter().any(|o: &Enumerator| o.name == *name) {
                return Err(Diagnostic::new(
                    Tag::D_UNKNOWN,
                    *espan,
                    format!(
                        "failed to define enumerator '{name}': Duplicate member or variable name"
                    ),
                ));
            }
            vals.push(Enumerator {
                name: name.clone(),
                value: v,
            });
            self.enum_pending.push((name.clone(), v));
            next = v.wrapping_add(1);
        }
        self.enum_pending = outer;
        if let Some(old) = tag.and_then(|t| self.types.lookup_tag("enum", t)) {
            if let TypeKind::Enum { values: ov, .. } = self.types.kind(old) {
                if *ov == vals {
                    return Ok(old);
                }
            }
            return Err(Diagnostic::new(
                Tag::D_DECL_TYPERED,
                span,
                format!("type redeclared: enum {}", tag.unwrap_or("")),
            ));
        }
        for (v, (_, _, at)) in vals.iter().zip(values) {
            if let Some((_, old)) = self.types.lookup_constant(&v.name) {
                if old != v.value || tag.is_some() {
                    return Err(Self::redeclared(&v.name, *at));
                }
            }
        }
        let id = self.types.add(TypeKind::Enum {
            name: tag.map(str::to_string),
            size: 4,
            values: vals,
        });
        if let Some(t) = tag {
            self.types.bind_tag("enum", t, id);
        }
        Ok(id)
    }
}
