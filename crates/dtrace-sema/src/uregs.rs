//! `uregs[]`: the current thread's user-mode registers, indexed by an integer
//! constant (the `R_*` inlines of the built-in `regs.d`).
//!
//! x86_64 numbering (as DTrace for Linux numbers them):
//! - `0..=20`: the words of `struct pt_regs` in kernel order (`R_R15` = 0 ...
//!   `R_SS` = 20), read from the registers the kernel saved on entry from user
//!   mode (`task_pt_regs`);
//! - `21..=25`: `R_DS`, `R_ES`, `R_FS`, `R_GS`, `R_TRAPNO`, which x86_64 keeps
//!   in the task's `thread` (`ds`, `es`, `fsbase`, `gsbase`, `trap_nr`);
//! - `26..=41`: the i386 names (`R_GS + 1 + n`, `n` the i386 `pt_regs` index:
//!   `R_ECX`, `R_EIP`, `R_ESP`, ...), mapped to their 64-bit registers. (`R_EBX`,
//!   `R_GS + 1`, is the same number as `R_TRAPNO`, which wins.)
//!
//! A non-constant index is `D_PROTO_ARG`, a constant past the table `D_UNKNOWN`.

use crate::check::{Checker, R};
use crate::expr::{const_value, convert, mk};
use crate::ir::*;
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Where a register is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The `n`th word of the user `pt_regs`.
    PtRegs(u32),
    /// A member of `curthread->thread`.
    Thread(&'static str),
}

/// The thread-kept registers, from index 21 on.
const THREAD_REGS: [&str; 5] = ["ds", "es", "fsbase", "gsbase", "trap_nr"];

/// The i386 `pt_regs` order, each as its x86_64 source.
const I386_REGS: [Source; 17] = [
    Source::PtRegs(5),  // ebx: rbx
    Source::PtRegs(11), // ecx: rcx
    Source::PtRegs(12), // edx: rdx
    Source::PtRegs(13), // esi: rsi
    Source::PtRegs(14), // edi: rdi
    Source::PtRegs(4),  // ebp: rbp
    Source::PtRegs(10), // eax: rax
    Source::Thread("ds"),
    Source::Thread("es"),
    Source::Thread("fsbase"),
    Source::Thread("gsbase"),
    Source::PtRegs(15), // orig_eax: orig_rax
    Source::PtRegs(16), // eip: rip
    Source::PtRegs(17), // cs
    Source::PtRegs(18), // eflags
    Source::PtRegs(19), // esp: rsp
    Source::PtRegs(20), // ss
];

/// Words in x86_64's `struct pt_regs`.
const PT_REGS_WORDS: i64 = 21;

fn source(n: i64) -> Option<Source> {
    if (0..PT_REGS_WORDS).contains(&n) {
        return Some(Source::PtRegs(n as u32));
    }
    let t = n - PT_REGS_WORDS;
    if let Some(f) = usize::try_from(t).ok().and_then(|t| THREAD_REGS.get(t)) {
        return Some(Source::Thread(f));
    }
    // R_GS + 1 + k for the i386 register k (R_GS is 24).
    usize::try_from(n - 25)
        .ok()
        .and_then(|k| I386_REGS.get(k))
        .copied()
}

impl<'a> Checker<'a> {
    /// `uregs[index]`.
    pub(crate) fn uregs_index(&mut self, index: &[ast::Expr], span: Span) -> R<TExpr> {
        let [i] = index else {
            return Err(Diagnostic::new(
                Tag::D_ARR_BADREF,
                span,
                "uregs[ ] takes exactly one index",
            ));
        };
        let iv = self.expr(i)?;
        let Some(n) = const_value(&iv).filter(|_| iv.ty.is_int()) else {
            return Err(Diagnostic::new(
                Tag::D_PROTO_ARG,
                span,
                format!(
                    "uregs[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: {}",
                    self.name(&iv.ty)
                ),
            ));
        };
        let Some(src) = source(n) else {
            return Err(Diagnostic::new(
                Tag::D_UNKNOWN,
                span,
                format!("uregs[]: index out of bounds ({n})"),
            ));
        };
        let u64t = self.b.uint64_t;
        match src {
            Source::PtRegs(w) => {
                let ulong = self.b.ulong;
                let base = mk(TExprKind::UserRegs, ulong, span);
                let off = mk(TExprKind::Int(i64::from(w) * 8), ulong, span);
                let addr = mk(
                    TExprKind::Arith {
                        op: ArithOp::Add,
                        lhs: Box::new(base),
                        rhs: Box::new(off),
                    },
                    ulong,
                    span,
                );
                Ok(mk(TExprKind::Load(Box::new(addr)), u64t, span))
            }
            Source::Thread(field) => {
                let e = |kind| Box::new(ast::Expr { kind, span });
                let thread = e(K::Member {
                    base: e(K::Ident("curthread".into())),
                    name: "thread".into(),
                    arrow: true,
                });
                let member = ast::Expr {
                    kind: K::Member {
                        base: thread,
                        name: field.into(),
                        arrow: false,
                    },
                    span,
                };
                let v = self.expr(&member)?;
                if !v.ty.is_int() {
                    return Err(Diagnostic::new(
                        Tag::D_UNKNOWN,
                        span,
                        format!("uregs[]: register {n} is not available on this kernel"),
                    ));
                }
                Ok(convert(v, u64t))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering() {
        assert_eq!(source(0), Some(Source::PtRegs(0))); // R_R15
        assert_eq!(source(16), Some(Source::PtRegs(16))); // R_RIP
        assert_eq!(source(21), Some(Source::Thread("ds"))); // R_DS
        assert_eq!(source(25), Some(Source::Thread("trap_nr"))); // R_TRAPNO
        assert_eq!(source(29), Some(Source::PtRegs(14))); // R_EDI
        assert_eq!(source(37), Some(Source::PtRegs(16))); // R_EIP
        assert_eq!(source(40), Some(Source::PtRegs(19))); // R_ESP
        assert_eq!(source(41), Some(Source::PtRegs(20)));
        assert_eq!(source(42), None);
        assert_eq!(source(-1), None);
    }
}
