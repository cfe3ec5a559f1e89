//! `uregs[R_*]`: the current thread's user registers, as the kernel saved them
//! when the thread entered it (x86_64). The index must be an integer constant
//! (regs.d names them): 0..20 are the words of `struct pt_regs`; 21..25 the
//! segment registers and trap number, kept in the thread's state; the i386
//! names (`R_GS + 1 + k`, word `k` of the i386 frame) read the registers they
//! extend.

use crate::check::{Checker, R};
use crate::expr::{const_value, convert, mk};
use crate::ir::*;
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Where a uregs[] index is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum URegSource {
    /// Word `n` of the user `struct pt_regs`.
    Word(u8),
    /// A member of the current task's `thread` (`struct thread_struct`).
    Thread(&'static str),
}

/// The thread-state members of indices 21..25 (R_DS, R_ES, R_FS, R_GS, R_TRAPNO).
const THREAD: [&str; 5] = ["ds", "es", "fsbase", "gsbase", "trap_nr"];

/// Word `k` of the i386 register frame, as the x86_64 register it extends.
const I386: [URegSource; 17] = [
    URegSource::Word(5),  // ebx
    URegSource::Word(11), // ecx
    URegSource::Word(12), // edx
    URegSource::Word(13), // esi
    URegSource::Word(14), // edi
    URegSource::Word(4),  // ebp
    URegSource::Word(10), // eax
    URegSource::Thread("ds"),
    URegSource::Thread("es"),
    URegSource::Thread("fsbase"),
    URegSource::Thread("gsbase"),
    URegSource::Word(15), // orig_eax
    URegSource::Word(16), // eip
    URegSource::Word(17), // cs
    URegSource::Word(18), // eflags
    URegSource::Word(19), // esp
    URegSource::Word(20), // ss
];

/// Where index `n` is read from, if it names a register.
pub(crate) fn source(n: i64) -> Option<URegSource> {
    match n {
        0..=20 => Some(URegSource::Word(n as u8)),
        21..=25 => Some(URegSource::Thread(THREAD[(n - 21) as usize])),
        26..=41 => Some(I386[(n - 25) as usize]),
        _ => None,
    }
}

impl<'a> Checker<'a> {
    /// `uregs[index]`.
    pub(crate) fn uregs_index(&mut self, index: &[ast::Expr], span: Span) -> R<TExpr> {
        let [i] = index else {
            return Err(Diagnostic::new(
                Tag::D_PROTO_LEN,
                span,
                format!(
                    "uregs[ ] prototype mismatch: {} args passed, 1 expected",
                    index.len()
                ),
            ));
        };
        let iv = self.expr(i)?;
        let Some(n) = const_value(&iv).filter(|_| iv.ty.is_int()) else {
            return Err(Diagnostic::new(
                Tag::D_PROTO_ARG,
                i.span,
                format!(
                    "uregs[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: {}",
                    self.name(&iv.ty)
                ),
            ));
        };
        let Some(src) = source(n) else {
            return Err(Diagnostic::new(
                Tag::D_UNKNOWN,
                i.span,
                format!("uregs[]: index out of bounds ({n})"),
            ));
        };
        let u64t = self.b.uint64_t;
        match src {
            URegSource::Word(w) => Ok(mk(TExprKind::URegs(w), u64t, span)),
            URegSource::Thread(member) => {
                let e = |kind| ast::Expr { kind, span };
                let thread = e(ast::ExprKind::Member {
                    base: Box::new(e(ast::ExprKind::Ident("curthread".into()))),
                    name: "thread".into(),
                    arrow: true,
                });
                let field = e(ast::ExprKind::Member {
                    base: Box::new(thread),
                    name: member.into(),
                    arrow: false,
                });
                let v = self.expr(&field)?;
                Ok(convert(v, u64t))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices() {
        assert_eq!(source(0), Some(URegSource::Word(0)));
        assert_eq!(source(16), Some(URegSource::Word(16)));
        assert_eq!(source(21), Some(URegSource::Thread("ds")));
        assert_eq!(source(25), Some(URegSource::Thread("trap_nr")));
        // R_EAX = R_GS + 1 + 6, R_EIP = R_GS + 1 + 12
        assert_eq!(source(31), Some(URegSource::Word(10)));
        assert_eq!(source(37), Some(URegSource::Word(16)));
        assert_eq!(source(42), None);
        assert_eq!(source(-1), None);
    }
}
