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
//! - `__dt_uword(uintptr_t addr)`: `uint64_t` — the word at `addr` in the current
//!   process's user memory, 0 if it cannot be read (`pr_argc` is the word at
//!   `mm->start_stack`).
//! - `__dt_d_path(mnt, dentry)`: `string` — `d_path()`'s walk from a
//!   `struct vfsmount *` and a `struct dentry *` (the path of a mount's root
//!   is where it is mounted).
//! - `__dt_curcpu()`: `unsigned long` — the address of the current CPU's
//!   `cpuinfo_t` (CPU number, processor set -1, chip -1, NUMA node), filled in
//!   by the call (`curcpu`).
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
        let arity = match func {
            "__dt_uargs" | "__dt_d_path" => 2,
            "__dt_uword" => 1,
            "__dt_curcpu" => 0,
            _ => usize::MAX,
        };
        if !allowed || arity == usize::MAX {
            return Err(Diagnostic::new(
                Tag::D_FUNC_UNDEF,
                span,
                format!("undefined function name: {func}"),
            ));
        }
        if args.len() != arity {
            return Err(Diagnostic::new(
                Tag::D_PROTO_LEN,
                span,
                format!(
                    "{func}( ) prototype mismatch: {} args passed, {arity} expected",
                    args.len()
                ),
            ));
        }
        if arity == 0 {
            return Ok(mk(TExprKind::CurCpu, self.b.ulong, span));
        }
        let mut addrs = Vec::new();
        for a in args {
            addrs.push(Box::new(self.address_arg(func, a)?));
        }
        if func == "__dt_d_path" {
            let mut it = addrs.into_iter();
            if let (Some(mnt), Some(dentry)) = (it.next(), it.next()) {
                return self.d_path_of(*mnt, *dentry, span);
            }
            return Err(Diagnostic::new(Tag::D_PROTO_LEN, span, "internal: arity"));
        }
        let mut addrs = addrs.into_iter();
        let (Some(first), second) = (addrs.next(), addrs.next()) else {
            return Err(Diagnostic::new(Tag::D_PROTO_LEN, span, "internal: arity"));
        };
        match second {
            Some(end) => {
                let ty = self.str_ty(UARGS_MAX);
                Ok(mk(TExprKind::UserArgs { start: first, end }, ty, span))
            }
            None => Ok(mk(TExprKind::UserWord(first), self.b.uint64_t, span)),
        }
    }

    /// An intrinsic's address argument, as `unsigned long`.
    fn address_arg(&mut self, func: &str, a: &ast::Expr) -> R<TExpr> {
        let v = self.expr(a)?;
        let v = self.decay(v);
        let ulong = self.b.ulong;
        match v.ty {
            Ty::Ptr { .. } => Ok(crate::ptr::retype(v, ulong)),
            Ty::Int { .. } => Ok(convert(v, ulong)),
            _ => Err(Diagnostic::new(
                Tag::D_PROTO_ARG,
                a.span,
                format!("{func}( ) arguments must be addresses"),
            )),
        }
    }
}
