//! Compiler intrinsics: subroutines named `__dt_*` that only the D libraries
//! (sources listed in [`CompileOptions::library_sources`]) may call. They give
//! library translators what D itself cannot express. A user program calling one
//! gets the same error as for any unknown function.
//!
//! - `__dt_uargs(uintptr_t start, uintptr_t end)`: `string` — the bytes
//!   `[start, end)` of the *current* process's user memory, at most
//!   [`UARGS_MAX`] - 1 of them, NULs between them turned into spaces: the
//!   process's argument area `mm->arg_start..arg_end` as `ps` shows it
//!   (`pr_psargs`). A failed read (paged-out or invalid memory) gives "".
//!
//! [`CompileOptions::library_sources`]: crate::CompileOptions

use crate::check::{Checker, R};
use crate::expr::{convert, mk};
use crate::ir::*;
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Names starting with this are intrinsics.
pub(crate) const PREFIX: &str = "__dt_";

/// Size of `__dt_uargs`' result, NUL included (`pr_psargs` is `char[80]`).
pub(crate) const UARGS_MAX: u32 = 80;

impl<'a> Checker<'a> {
    /// A call of `__dt_*`.
    pub(crate) fn intrinsic(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TExpr> {
        let allowed = self.opts.library_sources.contains(&span.source);
        if !allowed || func != "__dt_uargs" {
            return Err(Diagnostic::new(
                Tag::D_FUNC_UNDEF,
                span,
                format!("failed to resolve {func}: Unknown function name"),
            ));
        }
        let [start, end] = args else {
            return Err(Diagnostic::new(
                Tag::D_PROTO_LEN,
                span,
                format!(
                    "{func}( ) prototype mismatch: {} args passed, 2 expected",
                    args.len()
                ),
            ));
        };
        let ulong = self.b.ulong;
        let mut addrs = Vec::new();
        for a in [start, end] {
            let v = self.expr(a)?;
            let v = self.decay(v);
            if !v.ty.is_int_or_ptr() {
                return Err(Diagnostic::new(
                    Tag::D_PROTO_ARG,
                    a.span,
                    format!("{func}( ) arguments must be addresses"),
                ));
            }
            addrs.push(if v.ty.is_ptr() {
                crate::ptr::retype(v, ulong)
            } else {
                convert(v, ulong)
            });
        }
        let end = addrs.pop().map(Box::new);
        let start = addrs.pop().map(Box::new);
        let (Some(start), Some(end)) = (start, end) else {
            return Err(Diagnostic::new(Tag::D_PROTO_LEN, span, "internal: arity"));
        };
        let ty = self.str_ty(UARGS_MAX);
        Ok(mk(TExprKind::UserArgs { start, end }, ty, span))
    }
}
