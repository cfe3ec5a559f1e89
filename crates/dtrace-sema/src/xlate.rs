//! Translators (the Dynamic Tracing Guide's "Translators" chapter):
//!
//! ```d
//! translator struct out < struct in *P > { m1 = P->a; m2 = P->b + 1; };
//! xlate<struct out>(e).m1        xlate<struct out *>(p)->m2        *xlate<struct out *>(p)
//! ```
//!
//! A declaration is checked when it is read: the output type must be a struct or
//! union (D_XLATE_SOU), each member it defines must be a member of the output type
//! (D_XLATE_MEMB) whose type the definition's value fits as in assignment
//! (D_XLATE_INCOMPAT), and one input/output pair has at most one translator
//! (D_XLATE_REDECL). A member defined twice keeps its first definition.
//!
//! Member access on a translation (`xlate<T>(e).m`, `xlate<T *>(e)->m`,
//! `(*xlate<T *>(e)).m`, also through an `inline` whose value is a translation,
//! such as the library's `curpsinfo`) types only that member's expression, with the
//! translator's input name bound to `e`: nothing else is evaluated. The input
//! expression is evaluated once per use of the input name inside that expression.
//!
//! A whole translation (`trace(xlate<T>(e))`, `print(*curpsinfo)`) builds the output
//! struct in scratch memory ([`TExprKind::Build`]): every member the translator
//! defines is evaluated and stored; members it does not define are zero. Taking the
//! address of a translation, storing one in a variable, or using a translated
//! pointer as a value (`p = curpsinfo`) is not supported (D_XLATE_SOU).

use crate::check::{Checker, R};
use crate::expr::{convert, mk};
use crate::ir::*;
use dtrace_ctypes::{TypeId, TypeKind};
use dtrace_syntax::ast::{self, ExprKind as K, UnOp};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Deepest chain of `inline`s followed to find a translation.
const MAX_INLINE_CHAIN: u32 = 16;

/// A declared translator.
#[derive(Debug, Clone)]
pub(crate) struct Translator {
    /// The output struct or union type (as written: typedef names kept).
    pub out: TypeId,
    /// The input type.
    pub input: TypeId,
    /// The identifier naming the input in member definitions.
    pub input_name: String,
    /// Member definitions in declaration order.
    pub members: Vec<(String, ast::Expr, Span)>,
}

/// A translation found in an expression: `xlate<ty>(input)`, or a probe
/// argument its description translates (`args[0]` of `proc:::create`).
struct Found {
    ty: XlateTo,
    input: XlateFrom,
    /// Found through an inline with parameters (`fds[arg0]`): its name and
    /// arguments, bound while the input is typed.
    args: Option<(String, Vec<ast::Expr>)>,
}

/// The output type of a translation.
enum XlateTo {
    Written(ast::TypeName),
    /// A translated probe argument's type, as its description names it.
    Named(String, Span),
}

/// The input of a translation.
enum XlateFrom {
    Expr(ast::Expr),
    /// Native probe argument `mapping`, of the description's native type.
    ProbeArg {
        native: String,
        mapping: u8,
    },
}

impl<'a> Checker<'a> {
    fn type_text(&self, id: TypeId) -> String {
        self.types.name_of(id)
    }

    /// Same type, typedefs resolved (compared by C spelling).
    fn same_type(&self, a: TypeId, b: TypeId) -> bool {
        self.types.name_of(self.types.resolve(a)) == self.types.name_of(self.types.resolve(b))
    }

    fn is_sou(&self, id: TypeId) -> bool {
        matches!(
            self.types.kind(self.types.resolve(id)),
            TypeKind::Struct { .. } | TypeKind::Union { .. }
        )
    }

    /// `translator out < in name > { member = expr; ... };`
    pub(crate) fn translator(&mut self, t: &ast::Translator) -> R<()> {
        let out = self.type_name(&t.output)?;
        if let TypeKind::Forward { .. } = self.types.kind(self.types.resolve(out)) {
            // Reported at the end of the translator, as dtrace(1) does.
            let end = Span::new(t.span.source, t.span.hi, t.span.hi);
            return Err(Diagnostic::new(
                Tag::D_XLATE_SOU,
                end,
                format!("incomplete struct/union/enum {}", self.types.name_of(out)),
            ));
        }
        if !self.is_sou(out) {
            // Also reported at the end of the translator.
            let end = Span::new(t.span.source, t.span.hi, t.span.hi);
            return Err(Diagnostic::new(
                Tag::D_XLATE_SOU,
                end,
                "translator output type must be a struct or union",
            ));
        }
        let input = self.type_name(&t.input)?;
        if self
            .translators
            .iter()
            .any(|x| self.same_type(x.out, out) && self.same_type(x.input, input))
        {
            return Err(Diagnostic::new(
                Tag::D_XLATE_REDECL,
                t.span,
                format!(
                    "translator from {} to {} has already been declared",
                    self.type_text(input),
                    self.type_text(out)
                ),
            ));
        }
        let placeholder = mk(TExprKind::Int(0), self.value_ty(input), t.span);
        // A member defined twice is not an error (dtrace(1) takes the first
        // definition), but each definition must type-check.
        for (name, e, span) in t.members.iter() {
            let Some((_, mty)) = self.types.member(out, name) else {
                return Err(Diagnostic::new(
                    Tag::D_XLATE_MEMB,
                    *span,
                    format!(
                        "translator member {name} is not a member of {}",
                        self.type_text(out)
                    ),
                ));
            };
            let v = self.with_input(&t.input_name, placeholder.clone(), |c| c.expr(e))?;
            self.member_value(name, mty, v, *span)?;
        }
        self.translators.push(Translator {
            out,
            input,
            input_name: t.input_name.clone(),
            members: t.members.clone(),
        });
        Ok(())
    }

    /// Type `f` with `name` standing for `value` (the translator's input).
    fn with_input<T>(
        &mut self,
        name: &str,
        value: TExpr,
        f: impl FnOnce(&mut Self) -> R<T>,
    ) -> R<T> {
        self.xlate_env.push((name.to_string(), value));
        let r = f(self);
        self.xlate_env.pop();
        r
    }

    /// The translator input bound to `name`, inside a member definition.
    pub(crate) fn xlate_input(&self, name: &str, span: Span) -> Option<TExpr> {
        let (_, v) = self.xlate_env.iter().rev().find(|(n, _)| n == name)?;
        let mut v = v.clone();
        v.span = span;
        Some(v)
    }

    /// A member definition's value converted to the member's type: integers and
    /// pointers convert as in assignment, `char` arrays take strings, other
    /// aggregates take a value of the same type.
    fn member_value(&mut self, name: &str, mty: TypeId, v: TExpr, span: Span) -> R<TExpr> {
        let target = self.value_ty(mty);
        let vname = self.name(&v.ty);
        let fits = match target {
            Ty::Int { .. } => {
                let v = self.decay(v);
                v.ty.is_int_or_ptr().then(|| convert(v, target))
            }
            Ty::Ptr { .. } => {
                // As in assignment: a pointer, or the null pointer constant.
                let v = self.decay(v);
                let null = v.ty.is_int() && crate::expr::const_value(&v) == Some(0);
                (v.ty.is_ptr() || null).then(|| crate::ptr::retype(v, target))
            }
            Ty::Agg { id, .. } => match self.array_elem(id) {
                Some((elem, _)) if self.is_char(elem) => self.string_of(v).ok(),
                _ => match v.ty {
                    Ty::Agg { id: vid, .. } if self.same_type(vid, id) => Some(v),
                    _ => None,
                },
            },
            Ty::Str { .. } => self.string_of(v).ok(),
            Ty::Void | Ty::Stack { .. } => None,
        };
        match fits {
            Some(mut v) => {
                v.span = span;
                Ok(v)
            }
            None => Err(Diagnostic::new(
                Tag::D_XLATE_INCOMPAT,
                span,
                format!(
                    "translator member {name} definition uses incompatible types: \"{}\" = \"{vname}\"",
                    self.types.name_of(mty)
                ),
            )),
        }
    }

    /// The translation `e` denotes: `xlate<T>(x)` itself, or an `inline` (chain)
    /// whose value is one.
    fn find_xlate(&self, e: &ast::Expr, depth: u32) -> Option<Found> {
        match &e.kind {
            K::Xlate { ty, expr } => Some(Found {
                ty: XlateTo::Written(ty.clone()),
                input: XlateFrom::Expr((**expr).clone()),
                args: None,
            }),
            K::Index { base, index } => {
                let K::Ident(name) = &base.kind else {
                    return None;
                };
                if depth < MAX_INLINE_CHAIN
                    && self.is_param_inline(name)
                    && !self.arrays.contains_key(name)
                {
                    let inl = self.inlines.get(name)?;
                    let mut f = self.find_xlate(&inl.expr, depth + 1)?;
                    f.args = Some((name.clone(), index.clone()));
                    return Some(f);
                }
                if name != "args" || self.arrays.contains_key(name) {
                    return None;
                }
                let [i] = index.as_slice() else {
                    return None;
                };
                let K::Int { value, .. } = &i.kind else {
                    return None;
                };
                let d = self
                    .probes
                    .first()?
                    .args
                    .get(usize::try_from(*value).ok()?)?;
                let to = d.xlate.clone().filter(|x| *x != d.native)?;
                Some(Found {
                    ty: XlateTo::Named(to, e.span),
                    input: XlateFrom::ProbeArg {
                        native: d.native.clone(),
                        mapping: d.mapping,
                    },
                    args: None,
                })
            }
            K::Ident(name)
                if depth < MAX_INLINE_CHAIN && self.xlate_input(name, e.span).is_none() =>
            {
                let inl = self.inlines.get(name)?;
                self.find_xlate(&inl.expr, depth + 1)
            }
            _ => None,
        }
    }

    /// The translator from `input`'s type to `out`: an exact input type match first,
    /// then any integer for an integer input, any pointer for a pointer input.
    fn find_translator(&self, out: TypeId, input: &Ty) -> Option<Translator> {
        let cands = self
            .translators
            .iter()
            .filter(|t| self.same_type(t.out, out));
        let mut loose = None;
        for t in cands {
            match input.type_id() {
                Some(id) if self.same_type(id, t.input) => return Some(t.clone()),
                _ => {}
            }
            let want = self.value_ty(t.input);
            let close = (want.is_int() && input.is_int()) || (want.is_ptr() && input.is_ptr());
            if close && loose.is_none() {
                loose = Some(t.clone());
            }
        }
        loose
    }

    /// The output struct type of `xlate<ty>` and whether `ty` is a pointer to it.
    fn xlate_output(&mut self, ty: &XlateTo) -> R<(TypeId, bool)> {
        let (id, span) = match ty {
            XlateTo::Written(ty) => (self.type_name(ty)?, ty.span),
            XlateTo::Named(name, span) => match self.parse_c_type(name) {
                Some(id) => (id, *span),
                None => {
                    return Err(Diagnostic::new(
                        Tag::D_TYPE_ERR,
                        *span,
                        format!("probe argument type {name} is not defined"),
                    ))
                }
            },
        };
        let (sou, ptr) = match self.pointee(id) {
            Some(p) => (p, true),
            None => (id, false),
        };
        if !self.is_sou(sou) {
            return Err(Diagnostic::new(
                Tag::D_XLATE_SOU,
                span,
                format!(
                    "translate operator output type must be a struct or union, or a pointer to one: {}",
                    self.type_text(id)
                ),
            ));
        }
        Ok((sou, ptr))
    }

    /// The translator for `xlate<ty>(input)` and the typed input.
    fn resolve_xlate(&mut self, f: &Found, span: Span) -> R<(TypeId, bool, Translator, TExpr)> {
        let (sou, ptr) = self.xlate_output(&f.ty)?;
        let v = match (&f.input, &f.args) {
            (XlateFrom::Expr(e), Some((name, index))) => {
                let args = self.param_args(name, index, span)?;
                self.with_params(args, |c| c.expr(e))?
            }
            (XlateFrom::Expr(e), None) => self.expr(e)?,
            (XlateFrom::ProbeArg { native, mapping }, _) => self.native_arg(native, *mapping, span),
        };
        let v = self.decay(v);
        let Some(t) = self.find_translator(sou, &v.ty) else {
            return Err(Diagnostic::new(
                Tag::D_XLATE_NONE,
                span,
                format!(
                    "cannot translate from \"{}\" to \"{}\"",
                    self.name(&v.ty),
                    self.type_text(sou)
                ),
            ));
        };
        Ok((sou, ptr, t, v))
    }

    /// `base.name` / `base->name` when `base` is a translation; `None` otherwise.
    pub(crate) fn xlate_member(
        &mut self,
        base: &ast::Expr,
        name: &str,
        arrow: bool,
        span: Span,
    ) -> Option<R<TExpr>> {
        // `(*xlate<T *>(e)).m` is `xlate<T *>(e)->m`.
        let (inner, via_ptr) = match (&base.kind, arrow) {
            (
                K::Unary {
                    op: UnOp::Deref,
                    expr,
                },
                false,
            ) => match self.find_xlate(expr, 0) {
                Some(f) => (f, true),
                None => return None,
            },
            _ => (self.find_xlate(base, 0)?, arrow),
        };
        Some(self.translate_member(&inner, name, via_ptr, arrow, span))
    }

    fn translate_member(
        &mut self,
        f: &Found,
        name: &str,
        via_ptr: bool,
        arrow: bool,
        span: Span,
    ) -> R<TExpr> {
        let (sou, ptr, t, input) = self.resolve_xlate(f, span)?;
        if ptr != via_ptr {
            let shown = if ptr { self.types.pointer_to(sou) } else { sou };
            let (tag, op, what) = if arrow {
                (Tag::D_OP_PTR, "->", "a pointer to a struct or union")
            } else {
                (Tag::D_OP_SOU, ".", "a struct or union")
            };
            return Err(Diagnostic::new(
                tag,
                span,
                format!(
                    "operator {op} cannot be applied to type \"{}\"; must be applied to {what}",
                    self.type_text(shown)
                ),
            ));
        }
        let Some((_, mty)) = self.types.member(sou, name) else {
            return Err(Diagnostic::new(
                Tag::D_TYPE_MEMBER,
                span,
                format!("{name} is not a member of {}", self.type_text(sou)),
            ));
        };
        let Some((_, def, _)) = t.members.iter().find(|(n, _, _)| n == name) else {
            return Err(Diagnostic::new(
                Tag::D_XLATE_NOCONV,
                span,
                format!("translator does not define conversion for member: {name}"),
            ));
        };
        let def = def.clone();
        let v = self.with_input(&t.input_name, input, |c| c.expr(&def))?;
        self.member_value(name, mty, v, span)
    }

    /// `xlate<T>(e)` used whole: the struct built in scratch memory (pointer
    /// translations only as the operand of `*`).
    pub(crate) fn xlate_whole(&mut self, e: &ast::Expr, deref: bool, span: Span) -> R<TExpr> {
        let Some(f) = self.find_xlate(e, 0) else {
            return self.expr(e);
        };
        let (sou, ptr, t, input) = self.resolve_xlate(&f, span)?;
        if ptr && !deref {
            // A translated pointer has D's dynamic type: no value to compute
            // (libdtrace finds this generating code for the expression).
            return Err(Diagnostic::new(
                Tag::D_CG_DYN,
                span,
                "expression cannot evaluate to result of dynamic type",
            ));
        }
        if ptr != deref {
            return Err(Diagnostic::new(
                Tag::D_XLATE_SOU,
                span,
                "cannot dereference a translated struct",
            ));
        }
        let size = self.types.size_of(sou, 0).min(u32::MAX as u64) as u32;
        if size > MAX_BUILD {
            return Err(Diagnostic::new(
                Tag::D_XLATE_SOU,
                span,
                format!(
                    "translated type {} is too large to build whole ({size} bytes; at most {MAX_BUILD})",
                    self.type_text(sou)
                ),
            ));
        }
        let mut members = Vec::new();
        for (i, (name, def, mspan)) in t.members.iter().enumerate() {
            if t.members[..i].iter().any(|(n, _, _)| n == name) {
                continue;
            }
            let Some((m, mty)) = self.types.member(sou, name) else {
                continue;
            };
            if m.bit_size != 0 {
                continue;
            }
            let v = self.with_input(&t.input_name, input.clone(), |c| c.expr(def))?;
            let v = self.member_value(name, mty, v, *mspan)?;
            let msize = self.types.size_of(mty, 0).min(u32::MAX as u64) as u32;
            members.push(BuildMember {
                offset: (m.bit_offset / 8) as u32,
                size: msize,
                value: v,
            });
        }
        let ty = Ty::Agg { id: sou, size };
        Ok(mk(TExprKind::Build { size, members }, ty, span))
    }
}

/// Largest struct a whole translation builds (it lives in the scratch area).
pub(crate) const MAX_BUILD: u32 = 1024;

impl<'a> Checker<'a> {
    /// An `inline` whose value is a translation (`inline psinfo_t *curpsinfo =
    /// xlate<psinfo_t *>(curthread);`): check the translator exists and the declared
    /// type is the translation's. `None` when `init` is not a translation.
    pub(crate) fn xlate_inline(
        &mut self,
        name: &str,
        declared: TypeId,
        init: &ast::Expr,
        span: Span,
    ) -> Option<R<()>> {
        let f = self.find_xlate(init, 0)?;
        Some(
            self.resolve_xlate(&f, init.span)
                .and_then(|(sou, ptr, _, _)| {
                    let want = if ptr { self.types.pointer_to(sou) } else { sou };
                    if self.same_type(want, declared) {
                        Ok(())
                    } else {
                        Err(Diagnostic::new(
                            Tag::D_OP_INCOMPAT,
                            span,
                            format!(
                                "inline {name} definition uses incompatible types: \"{}\" = \"{}\"",
                                self.type_text(declared),
                                self.type_text(want)
                            ),
                        ))
                    }
                }),
        )
    }
}
