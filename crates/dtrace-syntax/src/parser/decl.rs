//! Declarations, type names and declarators, translators, provider declarations.
//!
//! Declarators are built "inside-out" as the AST documents: the node next to
//! the identifier is applied to the base type first. `int *a[4]` becomes
//! `Array(Pointer(Ident a))` and `int (*fp)(int)` becomes
//! `Pointer(Function(Ident fp))`.

use super::height::decl_height;
use super::Parser;
use crate::ast::{
    ArrayDim, BaseType, Decl, Declarator, MemberDecl, ProviderDecl, Translator, TypeName, TypeSpec,
};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::{Kw, Tok, P};

/// A second type where one was already given (`struct a {...} struct b`,
/// `struct s int`): dtrace(1)'s D_DECL_COMBO.
fn combo(t: &crate::token::Token) -> Diagnostic {
    Diagnostic::new(
        crate::diag::Tag::D_DECL_COMBO,
        t.span,
        "invalid type combination",
    )
}

/// One type-derivation step, in the order it applies to the base type.
enum Op {
    Ptr(Vec<String>),
    Arr(ArrayDim),
    Func(Vec<TypeName>, bool),
}

fn kw_text(k: Kw) -> &'static str {
    match k {
        Kw::Char => "char",
        Kw::Short => "short",
        Kw::Int => "int",
        Kw::Long => "long",
        Kw::Signed => "signed",
        Kw::Unsigned => "unsigned",
        Kw::Void => "void",
        Kw::Float => "float",
        Kw::Double => "double",
        Kw::String => "string",
        Kw::Const => "const",
        Kw::Volatile => "volatile",
        Kw::Restrict => "restrict",
        Kw::SelfKw => "self",
        Kw::This => "this",
        Kw::Static => "static",
        Kw::Extern => "extern",
        Kw::Typedef => "typedef",
        Kw::Inline => "inline",
        Kw::Register => "register",
        Kw::Auto => "auto",
        _ => "?",
    }
}

/// Remove the identifier from a declarator, returning it.
fn take_name(d: Declarator) -> (Declarator, Option<(String, Span)>) {
    match d {
        Declarator::Abstract => (Declarator::Abstract, None),
        Declarator::Ident(n, s) => (Declarator::Abstract, Some((n, s))),
        Declarator::Pointer { inner, qualifiers } => {
            let (i, n) = take_name(*inner);
            (
                Declarator::Pointer {
                    inner: Box::new(i),
                    qualifiers,
                },
                n,
            )
        }
        Declarator::Array { inner, dim } => {
            let (i, n) = take_name(*inner);
            (
                Declarator::Array {
                    inner: Box::new(i),
                    dim,
                },
                n,
            )
        }
        Declarator::Function {
            inner,
            params,
            varargs,
        } => {
            let (i, n) = take_name(*inner);
            (
                Declarator::Function {
                    inner: Box::new(i),
                    params,
                    varargs,
                },
                n,
            )
        }
    }
}

/// The declared names of a declarator (for typedefs).
fn declared_name(d: &Declarator) -> Option<&str> {
    match d {
        Declarator::Abstract => None,
        Declarator::Ident(n, _) => Some(n),
        Declarator::Pointer { inner, .. }
        | Declarator::Array { inner, .. }
        | Declarator::Function { inner, .. } => declared_name(inner),
    }
}

impl<'a> Parser<'a> {
    /// Declaration specifiers; `allow_storage` for declarations (not type names).
    fn decl_specs(&mut self, allow_storage: bool) -> Result<(TypeSpec, bool), Diagnostic> {
        let mut spec = TypeSpec::default();
        let mut any = false;
        loop {
            let t = self.peek()?;
            match &t.kind {
                Tok::Kw(k) if allow_storage && k.is_storage() => {
                    if spec.storage.is_some() {
                        return Err(Diagnostic::new(
                            crate::Tag::D_DECL_CLASS,
                            t.span,
                            "only one storage class allowed in a declaration",
                        ));
                    }
                    spec.storage = Some(kw_text(*k).to_string());
                }
                Tok::Kw(k) if k.is_qualifier() => spec.qualifiers.push(kw_text(*k).to_string()),
                Tok::Kw(k @ (Kw::Struct | Kw::Union | Kw::Enum)) => {
                    if spec.base != BaseType::Implicit {
                        return Err(combo(&t));
                    }
                    let k = *k;
                    self.bump()?;
                    spec.base = self.sou_or_enum(k)?;
                    any = true;
                    continue;
                }
                Tok::Kw(k) if k.is_type_keyword() => {
                    let word = kw_text(*k).to_string();
                    match &mut spec.base {
                        BaseType::Implicit => spec.base = BaseType::Keywords(vec![word]),
                        BaseType::Keywords(v) => v.push(word),
                        _ => return Err(combo(&t)),
                    }
                }
                Tok::Ident(n) if spec.base == BaseType::Implicit && self.is_type_ident(n) => {
                    spec.base = BaseType::Named(n.clone());
                }
                _ => return Ok((spec, any)),
            }
            any = true;
            self.bump()?;
        }
    }

    /// After `struct`/`union`/`enum`: `[tag] [{ ... }]`.
    fn sou_or_enum(&mut self, k: Kw) -> Result<BaseType, Diagnostic> {
        self.enter()?;
        let r = self.sou_or_enum_inner(k);
        self.leave();
        r
    }

    fn sou_or_enum_inner(&mut self, k: Kw) -> Result<BaseType, Diagnostic> {
        let t = self.peek()?;
        let tag = match t.kind {
            Tok::Ident(n) => {
                self.bump()?;
                Some(n)
            }
            _ => None,
        };
        let has_body = self.is_p(P::LBrace)?;
        if tag.is_none() && !has_body {
            let t = self.peek()?;
            return Err(self.syntax_error(&t));
        }
        if k == Kw::Enum {
            let values = if has_body {
                Some(self.enum_body()?)
            } else {
                None
            };
            return Ok(BaseType::Enum { tag, values });
        }
        if let (true, Some(tag)) = (has_body, &tag) {
            let name = format!("{} {tag}", if k == Kw::Struct { "struct" } else { "union" });
            if !self.sou_bodies.insert(name.clone()) {
                let brace = self.peek()?;
                return Err(Diagnostic::new(
                    crate::Tag::D_DECL_TYPERED,
                    brace.span,
                    format!("type redeclared: {name}"),
                ));
            }
        }
        let members = if has_body {
            Some(self.members()?)
        } else {
            None
        };
        Ok(if k == Kw::Struct {
            BaseType::Struct { tag, members }
        } else {
            BaseType::Union { tag, members }
        })
    }

    #[allow(clippy::type_complexity)]
    fn enum_body(&mut self) -> Result<Vec<(String, Option<crate::ast::Expr>, Span)>, Diagnostic> {
        self.expect(P::LBrace)?;
        let mut out = Vec::new();
        loop {
            let t = self.peek()?;
            if t.kind == Tok::P(P::RBrace) {
                if out.is_empty() {
                    return Err(self.syntax_error(&t));
                }
                self.bump()?;
                break;
            }
            let (name, _) = self.expect_ident()?;
            let value = if self.eat(P::Assign)? {
                Some(self.assign_expr()?)
            } else {
                None
            };
            // Errors about an enumerator are placed, as libdtrace places
            // them, where its definition ends: at the token after it.
            let span = self.peek()?.span;
            out.push((name, value, span));
            if self.eat(P::Comma)? {
                continue;
            }
            self.expect(P::RBrace)?;
            break;
        }
        Ok(out)
    }

    fn members(&mut self) -> Result<Vec<MemberDecl>, Diagnostic> {
        self.expect(P::LBrace)?;
        let mut out = Vec::new();
        loop {
            let t = self.peek()?;
            if t.kind == Tok::P(P::RBrace) {
                self.bump()?;
                return Ok(out);
            }
            let (spec, any) = self.decl_specs(false)?;
            if !any {
                return Err(self.syntax_error(&t));
            }
            loop {
                let start = self.peek()?.span;
                let decl = if self.is_p(P::Colon)? {
                    Declarator::Abstract
                } else {
                    self.declarator(true)?
                };
                let bitfield = if self.eat(P::Colon)? {
                    Some(self.assign_expr()?)
                } else {
                    None
                };
                out.push(MemberDecl {
                    spec: spec.clone(),
                    decl,
                    bitfield,
                    span: self.span_from(start),
                });
                if !self.eat(P::Comma)? {
                    break;
                }
            }
            self.expect(P::Semi)?;
        }
    }

    /// A type name: specifiers and an abstract declarator (`unsigned long *`).
    pub(crate) fn type_name(&mut self) -> Result<TypeName, Diagnostic> {
        let start = self.peek()?;
        let (spec, any) = self.decl_specs(false)?;
        if !any {
            return Err(self.syntax_error(&start));
        }
        let decl = self.declarator(false)?;
        Ok(TypeName {
            spec,
            decl,
            span: self.span_from(start.span),
        })
    }

    /// An array key's type, optionally naming a parameter.
    fn key_type(&mut self) -> Result<TypeName, Diagnostic> {
        let start = self.peek()?;
        let (spec, any) = self.decl_specs(false)?;
        if !any {
            return Err(self.syntax_error(&start));
        }
        let decl = self.declarator(true)?;
        Ok(TypeName {
            spec,
            decl,
            span: self.span_from(start.span),
        })
    }

    /// A declarator; `named` allows (does not require) an identifier.
    pub(crate) fn declarator(&mut self, named: bool) -> Result<Declarator, Diagnostic> {
        let (ops, name) = self.decl_ops(named)?;
        let mut d = match name {
            Some((n, s)) => Declarator::Ident(n, s),
            None => Declarator::Abstract,
        };
        for op in ops {
            d = match op {
                Op::Ptr(qualifiers) => Declarator::Pointer {
                    inner: Box::new(d),
                    qualifiers,
                },
                Op::Arr(dim) => Declarator::Array {
                    inner: Box::new(d),
                    dim,
                },
                Op::Func(params, varargs) => Declarator::Function {
                    inner: Box::new(d),
                    params,
                    varargs,
                },
            };
        }
        self.check_height(decl_height(&d))?;
        Ok(d)
    }

    #[allow(clippy::type_complexity)]
    fn decl_ops(&mut self, named: bool) -> Result<(Vec<Op>, Option<(String, Span)>), Diagnostic> {
        self.enter()?;
        let r = self.decl_ops_inner(named);
        self.leave();
        r
    }

    #[allow(clippy::type_complexity)]
    fn decl_ops_inner(
        &mut self,
        named: bool,
    ) -> Result<(Vec<Op>, Option<(String, Span)>), Diagnostic> {
        let mut ops = Vec::new();
        while self.eat(P::Star)? {
            self.check_chain(ops.len() as u32 + 1)?;
            let mut quals = Vec::new();
            while let Tok::Kw(k) = self.peek_kind()? {
                if !k.is_qualifier() {
                    break;
                }
                self.bump()?;
                quals.push(kw_text(k).to_string());
            }
            ops.push(Op::Ptr(quals));
        }
        let mut name = None;
        let mut inner = Vec::new();
        let t = self.peek()?;
        match &t.kind {
            Tok::Ident(n) if named => {
                self.bump()?;
                name = Some((n.clone(), t.span));
            }
            Tok::P(P::LParen) => {
                let n = self.peek_at(1)?;
                let nested = match &n.kind {
                    Tok::P(P::Star) | Tok::P(P::LParen) | Tok::P(P::LBracket) => true,
                    Tok::Ident(_) => named && !self.starts_type(&n),
                    _ => false,
                };
                if nested {
                    self.bump()?;
                    let (i, nm) = self.decl_ops(named)?;
                    self.expect(P::RParen)?;
                    inner = i;
                    name = nm;
                }
            }
            _ => {}
        }
        let mut suffixes = Vec::new();
        loop {
            self.check_chain((ops.len() + suffixes.len()) as u32 + 1)?;
            if self.eat(P::LBracket)? {
                suffixes.push(Op::Arr(self.array_dim()?));
            } else if self.is_p(P::LParen)? {
                self.bump()?;
                let (params, varargs) = self.params()?;
                suffixes.push(Op::Func(params, varargs));
            } else {
                break;
            }
        }
        suffixes.reverse();
        ops.extend(suffixes);
        ops.extend(inner);
        self.check_height(ops.len() as u32)?;
        Ok((ops, name))
    }

    /// After `[`: `]`, `N]` or D's `type, type]`.
    fn array_dim(&mut self) -> Result<ArrayDim, Diagnostic> {
        if self.eat(P::RBracket)? {
            return Ok(ArrayDim::None);
        }
        let t = self.peek()?;
        if self.starts_type(&t) {
            // Keys may be named: an inline's parameters (`inline fileinfo_t
            // fds[int fd] = ...;`).
            let mut keys = vec![self.key_type()?];
            while self.eat(P::Comma)? {
                keys.push(self.key_type()?);
            }
            self.expect(P::RBracket)?;
            return Ok(ArrayDim::Assoc(keys));
        }
        let e = self.assign_expr()?;
        self.expect(P::RBracket)?;
        Ok(ArrayDim::Size(Box::new(e)))
    }

    /// After `(`: parameter types up to `)`; `...` marks varargs.
    fn params(&mut self) -> Result<(Vec<TypeName>, bool), Diagnostic> {
        let mut out = Vec::new();
        if self.eat(P::RParen)? {
            return Ok((out, false));
        }
        loop {
            if self.eat(P::Ellipsis)? {
                self.expect(P::RParen)?;
                return Ok((out, true));
            }
            let start = self.peek()?;
            let (spec, any) = self.decl_specs(false)?;
            if !any {
                return Err(self.syntax_error(&start));
            }
            let decl = self.declarator(true)?;
            out.push(TypeName {
                spec,
                decl,
                span: self.span_from(start.span),
            });
            if self.eat(P::RParen)? {
                return Ok((out, false));
            }
            self.expect(P::Comma)?;
        }
    }

    /// A declaration with its `;`: `int x;`, `self int x[int];`, `typedef ...;`,
    /// `struct s { ... };`, `inline int X = 1;`.
    pub(crate) fn decl(&mut self) -> Result<Decl, Diagnostic> {
        let start = self.peek()?;
        let (spec, any) = self.decl_specs(true)?;
        if !any {
            return Err(self.syntax_error(&start));
        }
        let mut declarators = Vec::new();
        if !self.is_p(P::Semi)? {
            loop {
                let t = self.peek()?;
                let d = self.declarator(true)?;
                if declared_name(&d).is_none() {
                    return Err(self.syntax_error(&t));
                }
                let init = if self.eat(P::Assign)? {
                    Some(self.assign_expr()?)
                } else {
                    None
                };
                declarators.push((d, init));
                if !self.eat(P::Comma)? {
                    break;
                }
            }
        }
        self.expect(P::Semi)?;
        if spec.storage.as_deref() == Some("typedef") {
            for (d, _) in &declarators {
                if let Some(n) = declared_name(d) {
                    self.typedefs.insert(n.to_string());
                }
            }
        }
        let span = self.span_from(start.span);
        let in_include = self.file.is_some_and(|f| f.in_include(span.lo));
        Ok(Decl {
            spec,
            declarators,
            span,
            in_include,
        })
    }

    /// `translator out < in NAME > { member = expr; ... };`
    pub(crate) fn translator(&mut self) -> Result<Translator, Diagnostic> {
        let start = self.bump()?;
        let output = self.type_name()?;
        self.expect(P::Lt)?;
        let in_start = self.peek()?;
        let (spec, any) = self.decl_specs(false)?;
        if !any {
            return Err(self.syntax_error(&in_start));
        }
        let d = self.declarator(true)?;
        let (decl, name) = take_name(d);
        let Some((input_name, _)) = name else {
            let t = self.peek()?;
            return Err(self.syntax_error(&t));
        };
        let input = TypeName {
            spec,
            decl,
            span: self.span_from(in_start.span),
        };
        self.expect(P::Gt)?;
        self.expect(P::LBrace)?;
        let mut members = Vec::new();
        while !self.eat(P::RBrace)? {
            let (name, _) = self.expect_member_name()?;
            self.expect(P::Assign)?;
            let e = self.expr()?;
            self.expect(P::Semi)?;
            // Errors about a member definition are placed, as libdtrace
            // places them, at the token after it.
            let span = self.peek()?.span;
            members.push((name, e, span));
        }
        self.expect(P::Semi)?;
        Ok(Translator {
            output,
            input,
            input_name,
            members,
            span: self.span_from(start.span),
        })
    }

    /// `provider name { probe p(args) [: (xargs)]; ... };`
    pub(crate) fn provider(&mut self) -> Result<ProviderDecl, Diagnostic> {
        let start = self.bump()?;
        let (name, _) = self.expect_ident()?;
        self.expect(P::LBrace)?;
        let mut probes = Vec::new();
        while !self.eat(P::RBrace)? {
            let t = self.peek()?;
            if t.kind != Tok::Kw(Kw::Probe) {
                return Err(self.syntax_error(&t));
            }
            self.bump()?;
            let (pname, pspan) = self.expect_ident()?;
            self.expect(P::LParen)?;
            let (args, _) = self.params()?;
            // Translated argument types (`: (xargs)`) are accepted and ignored.
            if self.eat(P::Colon)? {
                self.expect(P::LParen)?;
                self.params()?;
            }
            self.expect(P::Semi)?;
            probes.push((pname, args, self.span_from(pspan)));
        }
        self.expect(P::Semi)?;
        Ok(ProviderDecl {
            name,
            probes,
            span: self.span_from(start.span),
        })
    }
}
