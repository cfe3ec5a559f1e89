//! Loops, an extension to D: `while`, `do ... while`, `for`, `break` and
//! `continue` (see docs/LOOPS.md).

use crate::check::{Checker, R};
use crate::ir::{TExprKind, TStmt};
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};

impl Checker<'_> {
    pub(crate) fn loop_stmt(
        &mut self,
        (init, cond, step): (Option<&ast::Expr>, Option<&ast::Expr>, Option<&ast::Expr>),
        body: &[ast::Stmt],
        test_first: bool,
        (span, line): (Span, u32),
        out: &mut Vec<TStmt>,
    ) -> R<()> {
        if let Some(e) = init {
            self.expr_stmt(e, out)?;
        }
        let cond = match cond {
            Some(c) => {
                let t = self.expr(c)?;
                let t = self.testable(t);
                if !t.ty.is_testable() {
                    return Err(Diagnostic::new(
                        Tag::D_PRED_SCALAR,
                        c.span,
                        "loop condition must be of scalar type",
                    ));
                }
                Some(t)
            }
            None => None,
        };
        let body = self.stmts(body)?;
        let mut steps = Vec::new();
        if let Some(e) = step {
            self.expr_stmt(e, &mut steps)?;
        }
        if let Some(bad) = body.iter().chain(&steps).find_map(recording) {
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                span,
                format!(
                    "{bad} may not be used in a loop body: a clause records its data \
                     once per firing (accumulate in variables or aggregations instead)"
                ),
            ));
        }
        let always = match &cond {
            None => true,
            Some(c) => matches!(c.kind, TExprKind::Int(v) if v != 0),
        };
        if always && !breaks(&body) {
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                span,
                "loop could not be proven to terminate (bound it with a counter, \
                 e.g. for (i = 0; i < 100; i++))",
            ));
        }
        out.push(TStmt::Loop {
            cond,
            body,
            step: steps,
            test_first,
            span,
            line,
        });
        Ok(())
    }
}

/// The name of the first data-recording action in `s` (outside nested loops,
/// which report their own).
fn recording(s: &TStmt) -> Option<&'static str> {
    match s {
        TStmt::If { then, els, .. } => then.iter().chain(els).find_map(recording),
        TStmt::Loop { .. } => None,
        TStmt::Exit { .. } => Some("exit()"),
        s if s.records() => Some("an action that records data"),
        _ => None,
    }
}

/// Whether `body` can `break` out of its own loop.
fn breaks(body: &[TStmt]) -> bool {
    body.iter().any(|s| match s {
        TStmt::Break => true,
        TStmt::If { then, els, .. } => breaks(then) || breaks(els),
        _ => false,
    })
}
