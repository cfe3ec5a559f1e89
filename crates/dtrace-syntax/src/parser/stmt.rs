//! Statements inside a clause body.

use super::Parser;
use crate::ast::Stmt;
use crate::diag::Diagnostic;
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

    #[inline(never)]
    fn expr_stmt(&mut self) -> Result<Stmt, Diagnostic> {
        let e = self.expr()?;
        // The `;` may be left out before `}`.
        let n = self.peek()?;
        match n.kind {
            Tok::P(P::Semi) => {
                self.bump()?;
            }
            Tok::P(P::RBrace) => {}
            _ => return Err(self.syntax_error(&n)),
        }
        Ok(Stmt::Expr(e))
    }
}

/// The body of `if`/`else`: a block's statements, or the one statement.
fn into_list(s: Stmt) -> Vec<Stmt> {
    match s {
        Stmt::Block(v, _) => v,
        s => vec![s],
    }
}
