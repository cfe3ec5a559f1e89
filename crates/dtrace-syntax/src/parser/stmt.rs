//! Statements inside a clause body.

use super::Parser;
use crate::ast::Stmt;
use crate::diag::{Diagnostic, Tag};
use crate::span::Span;
use crate::token::{Kw, Tok, P};

impl<'a> Parser<'a> {
    /// Statements up to and including the closing `}` (the `{` is consumed).
    pub(crate) fn stmts_until_rbrace(&mut self) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        loop {
            let t = self.peek()?;
            match t.kind {
                Tok::P(P::RBrace) => {
                    self.bump()?;
                    return Ok(out);
                }
                Tok::Eof => return Err(self.syntax_error(&t)),
                _ => out.push(self.stmt()?),
            }
        }
    }

    pub(crate) fn stmt(&mut self) -> Result<Stmt, Diagnostic> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    fn stmt_inner(&mut self) -> Result<Stmt, Diagnostic> {
        let t = self.peek()?;
        match t.kind {
            Tok::P(P::Semi) => {
                self.bump()?;
                Ok(Stmt::Empty(t.span))
            }
            Tok::P(P::LBrace) => self.block_stmt(t.span),
            Tok::Kw(Kw::If) => self.if_stmt(t.span),
            Tok::Kw(Kw::While) => self.while_stmt(t.span),
            Tok::Kw(Kw::Do) => self.do_stmt(t.span),
            Tok::Kw(Kw::For) => self.for_stmt(t.span),
            Tok::Kw(k @ (Kw::Break | Kw::Continue)) => self.jump_stmt(k, t.span),
            // D's statements are `;`, an expression, `if` and blocks: a
            // declaration in a clause is a syntax error, reported (as yacc does
            // in dtrace(1)) at the first token no statement can continue with.
            _ if self.starts_decl()? => {
                let at = match t.kind {
                    Tok::Kw(Kw::SelfKw | Kw::This) => self.peek_at(1)?,
                    _ => t,
                };
                Err(self.syntax_error(&at))
            }
            _ => self.expr_stmt(),
        }
    }

    #[inline(never)]
    fn block_stmt(&mut self, start: Span) -> Result<Stmt, Diagnostic> {
        self.bump()?;
        let body = self.stmts_until_rbrace()?;
        Ok(Stmt::Block(body, self.span_from(start)))
    }

    #[inline(never)]
    fn if_stmt(&mut self, start: Span) -> Result<Stmt, Diagnostic> {
        self.bump()?;
        self.expect(P::LParen)?;
        let cond = self.expr()?;
        self.expect(P::RParen)?;
        let then = into_list(self.stmt()?);
        let els = if self.peek_kind()? == Tok::Kw(Kw::Else) {
            self.bump()?;
            Some(into_list(self.stmt()?))
        } else {
            None
        };
        Ok(Stmt::If {
            cond,
            then,
            els,
            span: self.span_from(start),
        })
    }

    /// A loop's body, parsed with the loop counted (for `break`/`continue`).
    fn loop_body(&mut self) -> Result<Vec<Stmt>, Diagnostic> {
        self.loops += 1;
        let r = self.stmt();
        self.loops -= 1;
        Ok(into_list(r?))
    }

    #[inline(never)]
    fn while_stmt(&mut self, start: Span) -> Result<Stmt, Diagnostic> {
        self.bump()?;
        self.expect(P::LParen)?;
        let cond = self.expr()?;
        self.expect(P::RParen)?;
        let body = self.loop_body()?;
        Ok(Stmt::Loop {
            init: None,
            cond: Some(Box::new(cond)),
            step: None,
            body,
            test_first: true,
            span: self.span_from(start),
            line: self.line_of(start),
        })
    }

    /// The (logical) source line `at` starts on.
    fn line_of(&self, at: Span) -> u32 {
        self.file.map_or(0, |f| f.logical_line(at.lo))
    }

    #[inline(never)]
    fn do_stmt(&mut self, start: Span) -> Result<Stmt, Diagnostic> {
        self.bump()?;
        let body = self.loop_body()?;
        let t = self.peek()?;
        if t.kind != Tok::Kw(Kw::While) {
            return Err(self.syntax_error(&t));
        }
        self.bump()?;
        self.expect(P::LParen)?;
        let cond = self.expr()?;
        self.expect(P::RParen)?;
        self.expect(P::Semi)?;
        Ok(Stmt::Loop {
            init: None,
            cond: Some(Box::new(cond)),
            step: None,
            body,
            test_first: false,
            span: self.span_from(start),
            line: self.line_of(start),
        })
    }

    #[inline(never)]
    fn for_stmt(&mut self, start: Span) -> Result<Stmt, Diagnostic> {
        self.bump()?;
        self.expect(P::LParen)?;
        let init = self.opt_expr_before(P::Semi)?;
        self.expect(P::Semi)?;
        let cond = self.opt_expr_before(P::Semi)?;
        self.expect(P::Semi)?;
        let step = self.opt_expr_before(P::RParen)?;
        self.expect(P::RParen)?;
        let body = self.loop_body()?;
        Ok(Stmt::Loop {
            init,
            cond,
            step,
            body,
            test_first: true,
            span: self.span_from(start),
            line: self.line_of(start),
        })
    }

    /// An expression, or none when the next token is `end`.
    fn opt_expr_before(&mut self, end: P) -> Result<Option<Box<crate::ast::Expr>>, Diagnostic> {
        if self.peek_kind()? == Tok::P(end) {
            Ok(None)
        } else {
            Ok(Some(Box::new(self.expr()?)))
        }
    }

    #[inline(never)]
    fn jump_stmt(&mut self, k: Kw, start: Span) -> Result<Stmt, Diagnostic> {
        let word = if k == Kw::Break { "break" } else { "continue" };
        if self.loops == 0 {
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                start,
                format!("{word} outside a loop"),
            ));
        }
        self.bump()?;
        self.statement_end()?;
        Ok(if k == Kw::Break {
            Stmt::Break(start)
        } else {
            Stmt::Continue(start)
        })
    }

    #[inline(never)]
    fn expr_stmt(&mut self) -> Result<Stmt, Diagnostic> {
        let e = self.expr()?;
        self.statement_end()?;
        Ok(Stmt::Expr(e))
    }

    /// A statement's `;`, which may be left out before `}`.
    fn statement_end(&mut self) -> Result<(), Diagnostic> {
        let n = self.peek()?;
        match n.kind {
            Tok::P(P::Semi) => {
                self.bump()?;
                Ok(())
            }
            Tok::P(P::RBrace) => Ok(()),
            _ => Err(self.syntax_error(&n)),
        }
    }
}

/// The body of `if`/`else` or a loop: a block's statements, or the one statement.
fn into_list(s: Stmt) -> Vec<Stmt> {
    match s {
        Stmt::Block(v, _) => v,
        s => vec![s],
    }
}
