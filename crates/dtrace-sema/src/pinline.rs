//! Inlines with parameters, written as arrays: `inline fileinfo_t fds[int fd]
//! = xlate <fileinfo_t> (...);` (DTrace's `io.d` defines `fds[]` so). A use,
//! `fds[arg0]`, stands for the definition with each parameter standing for its
//! argument (converted to the parameter's type), typed where it is used, as a
//! plain inline is. The parameters are bound as a translator's input is, so
//! inside the definition they hide every other name.

use crate::check::{Checker, R};
use crate::decl::{declared_name, Inline};
use crate::expr::{convert, mk};
use crate::ir::*;
use dtrace_ctypes::TypeId;
use dtrace_syntax::ast::{self, Declarator};
use dtrace_syntax::{Diagnostic, Span, Tag};

impl<'a> Checker<'a> {
    /// The definition `inline T name[P1 p1, ...] = init;`.
    pub(crate) fn param_inline(
        &mut self,
        name: &str,
        base: TypeId,
        inner: &Declarator,
        keys: &[ast::TypeName],
        init: &ast::Expr,
        span: Span,
    ) -> R<()> {
        let declared = self.apply_declarator(base, inner, span)?;
        let ty = self.value_ty(declared);
        let mut params = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            let Some((pname, _)) = declared_name(&k.decl) else {
                return Err(Diagnostic::new(
                    Tag::D_DECL_PROTO_FORM,
                    k.span,
                    format!("inline {name} parameter #{} must be named", i + 1),
                ));
            };
            let id = self.type_name(k)?;
            params.push((pname.to_string(), self.value_ty(id)));
        }
        // Checked now, each parameter standing for a value of its type, so
        // errors point at the definition.
        let stand_ins: Vec<(String, TExpr)> = params
            .iter()
            .map(|(n, t)| (n.clone(), mk(TExprKind::Int(0), *t, span)))
            .collect();
        self.with_params(stand_ins, |c| {
            match c.xlate_inline(name, declared, init, span) {
                Some(r) => r,
                None => {
                    let v = c.expr(init)?;
                    c.inline_value(name, ty, v, span).map(|_| ())
                }
            }
        })?;
        self.inlines.insert(
            name.to_string(),
            Inline {
                ty,
                expr: init.clone(),
                params,
            },
        );
        Ok(())
    }

    /// Whether `name` is an inline with parameters.
    pub(crate) fn is_param_inline(&self, name: &str) -> bool {
        self.inlines.get(name).is_some_and(|i| !i.params.is_empty())
    }

    /// A use `name[args]`.
    pub(crate) fn param_inline_use(
        &mut self,
        name: &str,
        index: &[ast::Expr],
        span: Span,
    ) -> R<TExpr> {
        let Some(inl) = self.inlines.get(name).cloned() else {
            return Err(crate::proto::undefined(name, span));
        };
        let args = self.param_args(name, index, span)?;
        let v = self.with_params(args, |c| c.expr(&inl.expr))?;
        let mut v = self.inline_value(name, inl.ty, v, span)?;
        v.span = span;
        Ok(v)
    }

    /// The arguments of `name[index]`, typed here and converted to the
    /// parameters' types, by parameter name.
    pub(crate) fn param_args(
        &mut self,
        name: &str,
        index: &[ast::Expr],
        span: Span,
    ) -> R<Vec<(String, TExpr)>> {
        let params = self
            .inlines
            .get(name)
            .map(|i| i.params.clone())
            .unwrap_or_default();
        if index.len() != params.len() {
            return Err(Diagnostic::new(
                Tag::D_PROTO_LEN,
                span,
                format!(
                    "{name}[ ] prototype mismatch: {} arg{}passed, {} expected",
                    index.len(),
                    if index.len() == 1 { " " } else { "s " },
                    params.len()
                ),
            ));
        }
        let mut args = Vec::new();
        for (i, (e, (pname, pty))) in index.iter().zip(&params).enumerate() {
            let v = self.expr(e)?;
            let v = match pty {
                Ty::Int { .. } if v.ty.is_int() => convert(v, *pty),
                Ty::Ptr { .. } if v.ty.is_int_or_ptr() => crate::ptr::retype(v, *pty),
                _ if v.ty.same_repr(pty) => v,
                _ => {
                    return Err(Diagnostic::new(
                        Tag::D_PROTO_ARG,
                        e.span,
                        format!(
                            "{name}[ ] argument #{} is incompatible with prototype:\n\tprototype: {}\n\t argument: {}",
                            i + 1,
                            self.name(pty),
                            self.name(&v.ty)
                        ),
                    ))
                }
            };
            args.push((pname.clone(), v));
        }
        Ok(args)
    }

    /// Runs `f` with `params` bound as names.
    pub(crate) fn with_params<T>(
        &mut self,
        params: Vec<(String, TExpr)>,
        f: impl FnOnce(&mut Self) -> R<T>,
    ) -> R<T> {
        let depth = self.xlate_env.len();
        self.xlate_env.extend(params);
        let r = f(self);
        self.xlate_env.truncate(depth);
        r
    }
}
