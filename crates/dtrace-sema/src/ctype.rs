//! C type names in D: resolving written types (`unsigned long`, `struct foo *`,
//! ``vmlinux`task_struct``, typedef names) to [`TypeId`]s — D scope first, then
//! kernel BTF — applying declarators, parsing the C type strings providers give for
//! probe arguments, and mapping a C type to the [`Ty`] codegen sees.

use crate::check::{Checker, R};
use crate::expr::const_value;
use crate::ir::Ty;
use dtrace_ctypes::{TypeId, TypeKind};
use dtrace_syntax::ast::{self, ArrayDim, BaseType, Declarator, TypeSpec};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// `mod`name` -> (Some(mod), name); `` `name`` -> (None, name); `name` -> (None, name).
pub(crate) fn split_scope(name: &str) -> (Option<&str>, &str) {
    match name.split_once('`') {
        Some(("", n)) => (None, n),
        Some((m, n)) => (Some(m), n),
        None => (None, name),
    }
}

/// `unsigned long int` -> `unsigned long`, `signed` -> `int`, `long long` etc.
pub(crate) fn canonical_int_name(words: &[String]) -> String {
    let mut unsigned = false;
    let mut signed = false;
    let mut longs = 0;
    let mut base: Option<&str> = None;
    for w in words {
        match w.as_str() {
            "unsigned" => unsigned = true,
            "signed" => signed = true,
            "long" => longs += 1,
            "int" => {}
            other => base = Some(other),
        }
    }
    let core = match (base, longs) {
        (Some("double"), 1..) => "long double",
        (Some("char"), _) => "char",
        (Some("short"), _) => "short",
        (Some(other), _) => return other.to_string(),
        (None, 0) => "int",
        (None, 1) => "long",
        (None, _) => "long long",
    };
    if unsigned {
        format!("unsigned {core}")
    } else if signed && core == "char" {
        "signed char".to_string()
    } else {
        core.to_string()
    }
}

/// dtrace(1)'s rules for combining type keywords (`short void`, `char int`,
/// `long char`, `unsigned double` are errors, each with its own tag).
fn check_keywords(words: &[String], span: Span) -> R<()> {
    let is = |w: &str| words.iter().filter(|x| *x == w).count();
    let bases: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| matches!(*w, "char" | "int" | "void" | "float" | "double" | "string"))
        .collect();
    let err = |tag, msg: &str| Err(Diagnostic::new(tag, span, msg.to_string()));
    if bases.len() > 1 || (is("signed") > 0 && is("unsigned") > 0) {
        return err(Tag::D_DECL_COMBO, "invalid type combination");
    }
    let sized = is("short") + is("long") > 0;
    let signs = is("signed") + is("unsigned") > 0;
    match bases.first().copied() {
        Some("void") if sized || signs => err(
            Tag::D_DECL_VOIDATTR,
            "invalid type declaration: attributes may not be used with void type",
        ),
        Some("char") if sized => err(
            Tag::D_DECL_CHARATTR,
            "invalid type declaration: short and long may not be used with char type",
        ),
        Some("float" | "double" | "string") if signs => err(
            Tag::D_DECL_SIGNINT,
            "invalid type declaration: signed and unsigned may only be used with integer type",
        ),
        Some("string") if is("long") > 0 => err(
            Tag::D_DECL_LONGINT,
            "invalid type declaration: long and long long may only be used with integer or floating-point type",
        ),
        // `long short`: libdtrace looks the attributes up as a type name
        // ("short long "), which no type has.
        _ if is("short") > 0 && is("long") > 0 => {
            let mut name = String::new();
            for (w, text) in [
                ("signed", "signed "),
                ("unsigned", "unsigned "),
                ("short", "short "),
            ] {
                if is(w) > 0 {
                    name.push_str(text);
                }
            }
            name.push_str(if is("long") > 1 { "long long " } else { "long " });
            Err(unknown_type(&name, span))
        }
        _ => Ok(()),
    }
}

/// A function prototype's parameters: `void` alone or not at all, and no
/// dynamic (associative array) parameter.
fn check_params(inner: &Declarator, params: &[ast::TypeName], span: Span) -> R<()> {
    let is_void = |p: &ast::TypeName| {
        matches!(&p.spec.base, BaseType::Keywords(k) if k.iter().any(|w| w == "void"))
            && matches!(p.decl, Declarator::Abstract | Declarator::Ident(..))
    };
    if params.len() > 1 && params.iter().any(is_void) {
        return Err(Diagnostic::new(
            Tag::D_DECL_PROTO_VOID,
            span,
            "void must be sole parameter",
        ));
    }
    let fname = crate::decl::declared_name(inner).map_or("", |(n, _)| n);
    for (i, p) in params.iter().enumerate() {
        let mut d = &p.decl;
        loop {
            match d {
                Declarator::Array {
                    dim: ArrayDim::Assoc(_),
                    ..
                } => {
                    return Err(Diagnostic::new(
                        Tag::D_DECL_PROTO_TYPE,
                        span,
                        format!(
                            "function prototype may not use parameter of type dynamic variable: {fname}, parameter #{}",
                            i + 1
                        ),
                    ))
                }
                Declarator::Array { inner, .. }
                | Declarator::Pointer { inner, .. }
                | Declarator::Function { inner, .. } => d = inner,
                _ => break,
            }
        }
    }
    Ok(())
}

fn unknown_type(name: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_UNKNOWN,
        span,
        format!("failed to resolve type {name}: Unknown type name"),
    )
}

impl<'a> Checker<'a> {
    /// A type name as written in a cast, `sizeof` or `offsetof`.
    pub(crate) fn type_name(&mut self, tn: &ast::TypeName) -> R<TypeId> {
        let base = self.spec_type(&tn.spec, tn.span)?;
        self.apply_declarator(base, &tn.decl, tn.span)
    }

    /// The type declaration specifiers denote (defining structs/unions/enums written
    /// with a body).
    pub(crate) fn spec_type(&mut self, spec: &TypeSpec, span: Span) -> R<TypeId> {
        match &spec.base {
            BaseType::Implicit => Ok(self.int_id()),
            BaseType::Keywords(k) => {
                check_keywords(k, span)?;
                let name = if k.iter().any(|w| w == "void") {
                    "void".to_string()
                } else if k.iter().any(|w| w == "string") {
                    "string".to_string()
                } else {
                    canonical_int_name(k)
                };
                self.types
                    .lookup(&name)
                    .ok_or_else(|| unknown_type(&name, span))
            }
            BaseType::Named(n) => {
                let (module, name) = split_scope(n);
                if let Some(t) = self.lookup_kernel_type(module, name, span)? {
                    return Ok(t);
                }
                // ``vmlinux`task_struct``: a tag written without its keyword.
                for kw in ["struct", "union", "enum"] {
                    let full = format!("{kw} {name}");
                    if let Some(t) = self.lookup_kernel_type(module, &full, span)? {
                        return Ok(t);
                    }
                }
                Err(unknown_type(n, span))
            }
            BaseType::Struct { tag, members } | BaseType::Union { tag, members } => {
                let kw = if matches!(spec.base, BaseType::Struct { .. }) {
                    "struct"
                } else {
                    "union"
                };
                match members {
                    Some(m) => self.define_sou(kw, tag.as_deref(), m, span),
                    None => self.tag_type(kw, tag.as_deref().unwrap_or(""), span),
                }
            }
            BaseType::Enum { tag, values } => match values {
                Some(v) => self.define_enum(tag.as_deref(), v, span),
                None => self.tag_type("enum", tag.as_deref().unwrap_or(""), span),
            },
        }
    }

    /// `struct tag` (possibly ``struct vmlinux`tag``), D scope first, then the kernel.
    pub(crate) fn tag_type(&mut self, kw: &str, tag: &str, span: Span) -> R<TypeId> {
        let (module, name) = split_scope(tag);
        let full = format!("{kw} {name}");
        if let Some(t) = self.lookup_kernel_type(module, &full, span)? {
            return Ok(t);
        }
        // Without a kernel type source an unknown tag is undeclared; with one
        // (it was asked above and missed), C's rule applies.
        if module.is_some() || self.types.kernel().is_none() {
            return Err(unknown_type(&format!("{kw} {tag}"), span));
        }
        // As in C, naming an unknown struct, union or enum declares it,
        // incomplete (a definition may follow); what needs its members then
        // fails (libdtrace adds a forward tag).
        let f = self.types.add(TypeKind::Forward {
            name: name.to_string(),
            is_union: kw == "union",
        });
        self.types.bind_tag(kw, name, f);
        Ok(f)
    }

    fn lookup_kernel_type(
        &mut self,
        module: Option<&str>,
        name: &str,
        span: Span,
    ) -> R<Option<TypeId>> {
        self.types.try_lookup_scoped(module, name).map_err(|e| {
            Diagnostic::new(
                Tag::D_UNKNOWN,
                span,
                format!(
                    "failed to read kernel types of module {}: {e}",
                    module.unwrap_or("vmlinux")
                ),
            )
        })
    }

    /// Apply a declarator to a base type (the node next to the identifier first).
    pub(crate) fn apply_declarator(
        &mut self,
        base: TypeId,
        d: &Declarator,
        span: Span,
    ) -> R<TypeId> {
        match d {
            Declarator::Abstract | Declarator::Ident(..) => Ok(base),
            Declarator::Pointer { inner, .. } => {
                let t = self.apply_declarator(base, inner, span)?;
                Ok(self.types.pointer_to(t))
            }
            Declarator::Array { inner, dim } => {
                let elem = self.apply_declarator(base, inner, span)?;
                let len = match dim {
                    ArrayDim::None => 0,
                    ArrayDim::Size(e) => {
                        let v = self.expr(e)?;
                        match const_value(&v).filter(|_| v.ty.is_int()) {
                            Some(n) if n > i64::from(u32::MAX) => {
                                return Err(Diagnostic::new(
                                    Tag::D_DECL_ARRBIG,
                                    e.span,
                                    "array dimension too big",
                                ))
                            }
                            Some(n) if n >= 0 => n as u64,
                            _ => {
                                return Err(Diagnostic::new(
                                    Tag::D_DECL_ARRSUB,
                                    e.span,
                                    "positive integral constant expression or tuple signature expected as array declaration subscript",
                                ))
                            }
                        }
                    }
                    ArrayDim::Assoc(_) => {
                        return Err(Diagnostic::new(
                            Tag::D_DECL_USELESS,
                            span,
                            "associative arrays may only be declared as variables",
                        ))
                    }
                };
                Ok(self.types.add(TypeKind::Array { elem, len }))
            }
            Declarator::Function {
                inner,
                params,
                varargs,
            } => {
                let ret = self.apply_declarator(base, inner, span)?;
                check_params(inner, params, span)?;
                let mut ps = Vec::new();
                for p in params {
                    ps.push(self.type_name(p)?);
                }
                Ok(self.types.add(TypeKind::Function {
                    ret,
                    params: ps,
                    varargs: *varargs,
                }))
            }
        }
    }

    pub(crate) fn int_id(&self) -> TypeId {
        self.b.int.type_id().unwrap_or(self.b.void_id)
    }

    /// The value type of an object of C type `id` (typedefs kept for names).
    pub(crate) fn value_ty(&self, id: TypeId) -> Ty {
        let r = self.types.resolve(id);
        match self.types.kind(r) {
            TypeKind::Int { size, signed, .. } if matches!(size, 1 | 2 | 4 | 8) => Ty::Int {
                size: *size as u8,
                signed: *signed,
                id,
            },
            TypeKind::Enum { size, .. } if matches!(size, 1 | 2 | 4 | 8) => Ty::Int {
                size: *size as u8,
                signed: true,
                id,
            },
            TypeKind::Pointer { .. } => Ty::Ptr { id },
            TypeKind::String => Ty::Str {
                cap: self.opts.str_cap(),
            },
            TypeKind::Void | TypeKind::Function { .. } => Ty::Void,
            _ => Ty::Agg {
                id,
                size: self.types.size_of(r, 0).min(u32::MAX as u64) as u32,
            },
        }
    }

    /// What a pointer type points to (typedefs and qualifiers stripped from the
    /// pointer itself, kept on the target).
    pub(crate) fn pointee(&self, ptr: TypeId) -> Option<TypeId> {
        match self.types.kind(self.types.resolve(ptr)) {
            TypeKind::Pointer { target } => Some(*target),
            _ => None,
        }
    }

    /// The element type and length of a C array type.
    pub(crate) fn array_elem(&self, id: TypeId) -> Option<(TypeId, u64)> {
        match self.types.kind(self.types.resolve(id)) {
            TypeKind::Array { elem, len } => Some((*elem, *len)),
            _ => None,
        }
    }

    /// Size of an object of type `id` (`void` and functions count 1, as GCC).
    pub(crate) fn elem_size(&self, id: TypeId) -> u64 {
        match self.types.kind(self.types.resolve(id)) {
            TypeKind::Void | TypeKind::Function { .. } => 1,
            _ => self.types.size_of(id, self.opts.strsize as u64),
        }
    }

    /// Whether `id` is a `char`-sized integer (`char`, `signed char`, `unsigned char`).
    pub(crate) fn is_char(&self, id: TypeId) -> bool {
        matches!(
            self.types.kind(self.types.resolve(id)),
            TypeKind::Int { size: 1, .. }
        )
    }

    /// A C type written as text by a provider (`"const char *"`, `"struct file *"`,
    /// `"unsigned long"`, `"size_t"`): base words, then `*`s. `None` if unknown.
    pub(crate) fn parse_c_type(&mut self, text: &str) -> Option<TypeId> {
        let stars = text.chars().filter(|c| *c == '*').count();
        let words: Vec<String> = text
            .split(|c: char| c.is_whitespace() || c == '*')
            .filter(|w| !w.is_empty() && !matches!(*w, "const" | "volatile" | "restrict"))
            .map(str::to_string)
            .collect();
        let first = words.first()?.as_str();
        let base = match first {
            "struct" | "union" | "enum" => {
                let tag = words.get(1)?;
                self.types.lookup_scoped(None, &format!("{first} {tag}"))?
            }
            "void" => self.b.void_id,
            "char" | "short" | "int" | "long" | "signed" | "unsigned" => {
                self.types.lookup(&canonical_int_name(&words))?
            }
            name => self.types.lookup_scoped(None, name)?,
        };
        let mut t = base;
        for _ in 0..stars {
            t = self.types.pointer_to(t);
        }
        Some(t)
    }
}
