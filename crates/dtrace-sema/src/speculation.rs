//! Speculative tracing: `speculation()`, `speculate()`, `commit()`, `discard()`,
//! and where in a clause each action may appear.
//!
//! Placement (Dynamic Tracing Guide, "Speculative Tracing"; the rules and tags of
//! libdtrace's clause flags), checked in statement order over a clause:
//! - `speculate()` may not follow `speculate()` (`D_SPEC_SPEC`), `commit()`
//!   (`D_SPEC_COMM`) or a data-recording or aggregating action (`D_SPEC_DREC`);
//! - `commit()` may not follow a data-recording or aggregating action
//!   (`D_COMM_DREC`); `discard()` may appear anywhere;
//! - an aggregating action may not follow `commit()` (`D_AGG_COMM`) or
//!   `speculate()` (`D_AGG_SPEC`);
//! - after `speculate()`, no destructive action (`D_ACT_SPEC`) and no `exit()`
//!   (`D_EXIT_SPEC`); after `commit()`, no data-recording action (`D_DREC_COMM`).
//!
//! As in dtrace(1), type errors anywhere in the clause come first: the first
//! placement error is held until the clause's statements are all checked. The
//! exception is a call to a destructive subroutine, whose misplacement (or any
//! earlier one) is reported before the call itself is looked at, so that it is
//! reported even for the destructive subroutines this implementation lacks.

use crate::check::{Checker, R};
use crate::ir::*;
use crate::proto::len_mismatch as proto_len;
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Actions and subroutines DTrace calls destructive (they need `-w`).
const DESTRUCTIVE: &[&str] = &[
    "breakpoint",
    "chill",
    "copyout",
    "copyoutstr",
    "panic",
    "raise",
    "stop",
    "system",
];

/// What an action statement is, for the placement rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placed {
    Speculate,
    Commit,
    Discard,
    Aggregating,
    Exit,
    Destructive,
    DataRecording,
}

impl Placed {
    /// The kind of a statement calling `func` (an action or a subroutine).
    pub(crate) fn of_call(func: &str) -> Option<Placed> {
        Some(match func {
            "speculate" => Placed::Speculate,
            "commit" => Placed::Commit,
            "discard" => Placed::Discard,
            "exit" => Placed::Exit,
            f if DESTRUCTIVE.contains(&f) => Placed::Destructive,
            f if crate::actions::is_action(f) => Placed::DataRecording,
            _ => return None,
        })
    }
}

/// The clause flags: which kinds of action the clause has had so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClauseFlags {
    speculate: bool,
    commit: bool,
    data: bool,
    aggregating: bool,
    /// The first placement error, reported once the clause has been checked.
    pub error: Option<Diagnostic>,
}

impl ClauseFlags {
    /// Record an action of kind `k` at `span`, noting the first misplacement.
    pub(crate) fn place(&mut self, k: Placed, span: Span) {
        let err = |tag: Tag, msg: &str| Some(Diagnostic::new(tag, span, msg));
        let drec = self.data || self.aggregating;
        let e = match k {
            Placed::Commit => {
                self.commit = true;
                if drec {
                    err(
                        Tag::D_COMM_DREC,
                        "commit( ) may not follow data-recording action(s)",
                    )
                } else {
                    None
                }
            }
            Placed::Discard => None,
            Placed::Speculate => {
                let e = if self.speculate {
                    err(Tag::D_SPEC_SPEC, "speculate( ) may not follow speculate( )")
                } else if self.commit {
                    err(Tag::D_SPEC_COMM, "speculate( ) may not follow commit( )")
                } else if drec {
                    err(
                        Tag::D_SPEC_DREC,
                        "speculate( ) may not follow data-recording action(s)",
                    )
                } else {
                    None
                };
                self.speculate = true;
                e
            }
            Placed::Aggregating => {
                self.aggregating = true;
                if self.commit {
                    err(
                        Tag::D_AGG_COMM,
                        "aggregating actions may not follow commit( )",
                    )
                } else if self.speculate {
                    err(
                        Tag::D_AGG_SPEC,
                        "aggregating actions may not follow speculate( )",
                    )
                } else {
                    None
                }
            }
            Placed::Exit | Placed::Destructive | Placed::DataRecording => {
                self.data = true;
                if self.speculate && k == Placed::Destructive {
                    err(
                        Tag::D_ACT_SPEC,
                        "destructive actions may not follow speculate( )",
                    )
                } else if self.speculate && k == Placed::Exit {
                    err(Tag::D_EXIT_SPEC, "exit( ) may not follow speculate( )")
                } else if self.commit {
                    err(
                        Tag::D_DREC_COMM,
                        "data-recording actions may not follow commit( )",
                    )
                } else {
                    None
                }
            }
        };
        if self.error.is_none() {
            self.error = e;
        }
    }
}

impl<'a> Checker<'a> {
    /// `speculation()`: `int speculation(void)`.
    pub(crate) fn speculation_call(&mut self, args: &[ast::Expr], span: Span) -> R<TExpr> {
        if !args.is_empty() {
            return Err(proto_len("speculation", args.len(), "0", span));
        }
        Ok(TExpr {
            kind: TExprKind::Speculation,
            ty: self.b.int,
            span,
        })
    }

    /// `speculate(id)`, `commit(id)`, `discard(id)`: `void f(int)`.
    pub(crate) fn spec_action(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TStmt> {
        if args.len() != 1 {
            return Err(proto_len(func, args.len(), "1", span));
        }
        let id = self.expr(&args[0])?;
        if !id.ty.is_int() {
            return Err(Diagnostic::new(
                Tag::D_PROTO_ARG,
                id.span,
                format!(
                    "{func}( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: {}",
                    self.name(&id.ty)
                ),
            ));
        }
        let id = crate::expr::convert(id, self.b.int64_t);
        Ok(match func {
            "speculate" => TStmt::Speculate { id },
            _ => TStmt::CommitDiscard {
                id,
                commit: func == "commit",
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_error(kinds: &[Placed]) -> Option<Tag> {
        let mut f = ClauseFlags::default();
        for k in kinds {
            f.place(*k, Span::default());
        }
        f.error.map(|d| d.tag)
    }

    #[test]
    fn placement_rules() {
        use Placed::*;
        assert_eq!(
            first_error(&[Speculate, DataRecording, DataRecording]),
            None
        );
        assert_eq!(first_error(&[Commit, Commit, Discard, Commit]), None);
        assert_eq!(first_error(&[DataRecording, Discard, DataRecording]), None);
        assert_eq!(first_error(&[Speculate, Speculate]), Some(Tag::D_SPEC_SPEC));
        assert_eq!(first_error(&[Commit, Speculate]), Some(Tag::D_SPEC_COMM));
        assert_eq!(
            first_error(&[DataRecording, Speculate]),
            Some(Tag::D_SPEC_DREC)
        );
        assert_eq!(
            first_error(&[Aggregating, Speculate]),
            Some(Tag::D_SPEC_DREC)
        );
        assert_eq!(first_error(&[Aggregating, Commit]), Some(Tag::D_COMM_DREC));
        assert_eq!(first_error(&[Commit, Aggregating]), Some(Tag::D_AGG_COMM));
        assert_eq!(
            first_error(&[Speculate, Aggregating]),
            Some(Tag::D_AGG_SPEC)
        );
        assert_eq!(
            first_error(&[Speculate, Destructive]),
            Some(Tag::D_ACT_SPEC)
        );
        assert_eq!(first_error(&[Speculate, Exit]), Some(Tag::D_EXIT_SPEC));
        assert_eq!(
            first_error(&[Commit, DataRecording]),
            Some(Tag::D_DREC_COMM)
        );
        assert_eq!(first_error(&[Commit, Exit]), Some(Tag::D_DREC_COMM));
        // The first misplacement is the one reported.
        assert_eq!(
            first_error(&[Speculate, Exit, Aggregating]),
            Some(Tag::D_EXIT_SPEC)
        );
    }

    #[test]
    fn call_kinds() {
        assert_eq!(Placed::of_call("speculate"), Some(Placed::Speculate));
        assert_eq!(Placed::of_call("printf"), Some(Placed::DataRecording));
        assert_eq!(Placed::of_call("chill"), Some(Placed::Destructive));
        assert_eq!(Placed::of_call("strlen"), None);
    }
}
