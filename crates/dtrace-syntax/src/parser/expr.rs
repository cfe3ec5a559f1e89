//! Expressions, with C's precedence and associativity (D adds `^^` between
//! `&&` and `||`, and `sizeof`/`stringof`/`offsetof`/`xlate`).

use super::height::{expr_height, height_after_link};
use super::Parser;
use crate::ast::{BinOp, Expr, ExprKind, TypeName, UnOp};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::{Kw, Tok, P};

/// Binary operators from `||` (1) to `*` (11); all left-associative.
fn binop(t: &Tok, in_pred: bool) -> Option<(BinOp, u8)> {
    let p = match t {
        Tok::P(p) => *p,
        Tok::SlashEnd if !in_pred => P::Slash,
        _ => return None,
    };
    Some(match p {
        P::OrOr => (BinOp::LogOr, 1),
        P::XorXor => (BinOp::LogXor, 2),
        P::AndAnd => (BinOp::LogAnd, 3),
        P::Pipe => (BinOp::BitOr, 4),
        P::Caret => (BinOp::BitXor, 5),
        P::Amp => (BinOp::BitAnd, 6),
        P::EqEq => (BinOp::Eq, 7),
        P::Ne => (BinOp::Ne, 7),
        P::Lt => (BinOp::Lt, 8),
        P::Le => (BinOp::Le, 8),
        P::Gt => (BinOp::Gt, 8),
        P::Ge => (BinOp::Ge, 8),
        P::Shl => (BinOp::Shl, 9),
        P::Shr => (BinOp::Shr, 9),
        P::Plus => (BinOp::Add, 10),
        P::Minus => (BinOp::Sub, 10),
        P::Star => (BinOp::Mul, 11),
        P::Slash => (BinOp::Div, 11),
        P::Percent => (BinOp::Mod, 11),
        _ => return None,
    })
}

/// `=` gives `Some(None)`, `+=` gives `Some(Some(Add))`.
fn assign_op(t: &Tok) -> Option<Option<BinOp>> {
    let Tok::P(p) = t else { return None };
    Some(match p {
        P::Assign => None,
        P::AddAssign => Some(BinOp::Add),
        P::SubAssign => Some(BinOp::Sub),
        P::MulAssign => Some(BinOp::Mul),
        P::DivAssign => Some(BinOp::Div),
        P::ModAssign => Some(BinOp::Mod),
        P::AndAssign => Some(BinOp::BitAnd),
        P::OrAssign => Some(BinOp::BitOr),
        P::XorAssign => Some(BinOp::BitXor),
        P::ShlAssign => Some(BinOp::Shl),
        P::ShrAssign => Some(BinOp::Shr),
        _ => return None,
    })
}

fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// How a token continues an expression, with its binding power: comma 0,
/// assignment 1, `?:` 2, binary operators 3 (`||`) to 13 (`*`).
enum Infix {
    Comma,
    Assign(Option<BinOp>),
    Ternary,
    Binary(BinOp),
}

fn infix(t: &Tok, in_pred: bool) -> Option<(Infix, u8)> {
    if let Some((op, p)) = binop(t, in_pred) {
        return Some((Infix::Binary(op), p + 2));
    }
    if let Some(op) = assign_op(t) {
        return Some((Infix::Assign(op), 1));
    }
    match t {
        Tok::P(P::Comma) => Some((Infix::Comma, 0)),
        Tok::P(P::Question) => Some((Infix::Ternary, 2)),
        _ => None,
    }
}

/// A prefix operator waiting for its operand.
enum Prefix {
    Op(UnOp, Span),
    Cast(TypeName, Span),
    Sizeof(Span),
    Stringof(Span),
}

impl<'a> Parser<'a> {
    /// A full expression, comma operator included.
    pub(crate) fn expr(&mut self) -> Result<Expr, Diagnostic> {
        self.expr_bp(0)
    }

    /// An assignment expression (no top-level comma): function arguments,
    /// array keys, initializers.
    pub(crate) fn assign_expr(&mut self) -> Result<Expr, Diagnostic> {
        self.expr_bp(1)
    }

    /// Precedence climbing: operators binding at least as tightly as `min`.
    fn expr_bp(&mut self, min: u8) -> Result<Expr, Diagnostic> {
        self.enter()?;
        let r = self.expr_bp_inner(min);
        self.leave();
        r
    }

    fn expr_bp_inner(&mut self, min: u8) -> Result<Expr, Diagnostic> {
        let lhs = self.unary()?;
        let more = match self.peek() {
            Ok(t) => infix(&t.kind, self.in_pred).is_some_and(|(_, p)| p >= min),
            Err(e) => return Err(e),
        };
        if more {
            self.infix_loop(lhs, min)
        } else {
            Ok(lhs)
        }
    }

    /// The operators after a first operand (a separate function to keep the
    /// frame of [`Self::expr_bp_inner`], which every nesting level uses, small).
    #[inline(never)]
    fn infix_loop(&mut self, mut lhs: Expr, min: u8) -> Result<Expr, Diagnostic> {
        // The tree grows on its left spine here, so its height is tracked.
        let mut h = expr_height(&lhs);
        let mut chain = 0u32;
        loop {
            let t = self.peek()?;
            let Some((how, prec)) = infix(&t.kind, self.in_pred) else {
                break;
            };
            if prec < min {
                break;
            }
            chain += 1;
            lhs = match how {
                Infix::Binary(op) => self.binary_rest(lhs, op, prec + 1)?,
                Infix::Comma => self.binary_rest(lhs, BinOp::Comma, 1)?,
                Infix::Assign(op) => {
                    // As in C, only a unary expression may be assigned to.
                    if chain > 1 {
                        return Err(self.syntax_error(&t));
                    }
                    self.assign_rest(lhs, op)?
                }
                Infix::Ternary => self.ternary_rest(lhs)?,
            };
            h = height_after_link(h, &lhs);
            self.check_height(h)?;
        }
        Ok(lhs)
    }

    pub(crate) fn check_chain(&mut self, chain: u32) -> Result<(), Diagnostic> {
        if self.depth.saturating_add(chain) > super::MAX_DEPTH {
            let t = self.peek()?;
            return Err(self.too_deep(t.span));
        }
        Ok(())
    }

    /// The place of the token after an operand ending at `after` (see
    /// `ExprKind::Binary::at`); the operand's own span if there is none.
    fn report_at(&mut self, after: Span) -> Span {
        match self.peek() {
            Ok(t) if t.kind == Tok::SlashEnd => {
                let end = t.span.hi as usize;
                let text = self.lx.text();
                let skip = text
                    .get(end..)
                    .map_or(0, |r| r.len() - r.trim_start().len());
                let at = (end + skip) as u32;
                Span::new(t.span.source, at, at)
            }
            Ok(t) => t.span,
            Err(_) => after,
        }
    }

    #[inline(never)]
    fn binary_rest(&mut self, lhs: Expr, op: BinOp, min: u8) -> Result<Expr, Diagnostic> {
        self.bump()?;
        let rhs = self.expr_bp(min)?;
        let span = lhs.span.to(rhs.span);
        let at = self.report_at(rhs.span);
        Ok(Expr {
            kind: ExprKind::Binary {
                op,
                lhs: bx(lhs),
                rhs: bx(rhs),
                at,
            },
            span,
        })
    }

    #[inline(never)]
    fn assign_rest(&mut self, lhs: Expr, op: Option<BinOp>) -> Result<Expr, Diagnostic> {
        self.bump()?;
        let rhs = self.expr_bp(1)?;
        let span = lhs.span.to(rhs.span);
        Ok(Expr {
            kind: ExprKind::Assign {
                op,
                lhs: bx(lhs),
                rhs: bx(rhs),
            },
            span,
        })
    }

    #[inline(never)]
    fn ternary_rest(&mut self, cond: Expr) -> Result<Expr, Diagnostic> {
        self.bump()?;
        let then = self.expr_bp(0)?;
        self.expect(P::Colon)?;
        let els = self.expr_bp(2)?;
        let span = cond.span.to(els.span);
        Ok(Expr {
            kind: ExprKind::Ternary {
                cond: bx(cond),
                then: bx(then),
                els: bx(els),
            },
            span,
        })
    }

    /// Prefix operators, casts, `sizeof` and `stringof`, then a postfix
    /// expression. Prefixes are collected in a loop, not by recursion.
    pub(crate) fn unary(&mut self) -> Result<Expr, Diagnostic> {
        let prefixed = match self.peek() {
            Ok(t) => {
                matches!(
                    t.kind,
                    Tok::P(
                        P::Bang
                            | P::Tilde
                            | P::Minus
                            | P::Plus
                            | P::Star
                            | P::Amp
                            | P::Inc
                            | P::Dec
                    ) | Tok::Kw(Kw::Sizeof | Kw::Stringof)
                ) || (t.kind == Tok::P(P::LParen) && self.paren_starts_type()?)
            }
            Err(e) => return Err(e),
        };
        if prefixed {
            self.prefixed()
        } else {
            self.postfix()
        }
    }

    #[inline(never)]
    fn prefixed(&mut self) -> Result<Expr, Diagnostic> {
        let mut prefixes = Vec::new();
        let mut e = loop {
            self.check_chain(prefixes.len() as u32)?;
            let t = self.peek()?;
            let op = match t.kind {
                Tok::P(P::Bang) => UnOp::Not,
                Tok::P(P::Tilde) => UnOp::BitNot,
                Tok::P(P::Minus) => UnOp::Neg,
                Tok::P(P::Plus) => UnOp::Plus,
                Tok::P(P::Star) => UnOp::Deref,
                Tok::P(P::Amp) => UnOp::AddrOf,
                Tok::P(P::Inc) => UnOp::PreInc,
                Tok::P(P::Dec) => UnOp::PreDec,
                Tok::Kw(Kw::Sizeof) => {
                    self.bump()?;
                    if self.is_p(P::LParen)? && self.paren_starts_type()? {
                        break self.sizeof_type(t.span)?;
                    }
                    prefixes.push(Prefix::Sizeof(t.span));
                    continue;
                }
                Tok::Kw(Kw::Stringof) => {
                    self.bump()?;
                    prefixes.push(Prefix::Stringof(t.span));
                    continue;
                }
                Tok::P(P::LParen) if self.paren_starts_type()? => {
                    self.bump()?;
                    let ty = self.type_name()?;
                    self.expect(P::RParen)?;
                    prefixes.push(Prefix::Cast(ty, t.span));
                    continue;
                }
                _ => break self.postfix()?,
            };
            self.bump()?;
            prefixes.push(Prefix::Op(op, t.span));
        };
        let mut h = expr_height(&e);
        while let Some(p) = prefixes.pop() {
            let end = e.span;
            let (kind, start) = match p {
                Prefix::Op(op, s) => (ExprKind::Unary { op, expr: bx(e) }, s),
                Prefix::Cast(ty, s) => (ExprKind::Cast { ty, expr: bx(e) }, s),
                Prefix::Sizeof(s) => (ExprKind::SizeofExpr(bx(e)), s),
                Prefix::Stringof(s) => (ExprKind::Stringof(bx(e)), s),
            };
            e = Expr {
                kind,
                span: start.to(end),
            };
            h = height_after_link(h, &e);
        }
        self.check_height(h)?;
        Ok(e)
    }

    #[inline(never)]
    fn sizeof_type(&mut self, start: Span) -> Result<Expr, Diagnostic> {
        self.bump()?;
        let ty = self.type_name()?;
        self.expect(P::RParen)?;
        Ok(Expr {
            kind: ExprKind::SizeofType(ty),
            span: self.span_from(start),
        })
    }

    fn paren_starts_type(&mut self) -> Result<bool, Diagnostic> {
        let n = self.peek_at(1)?;
        Ok(self.starts_type(&n))
    }

    fn postfix(&mut self) -> Result<Expr, Diagnostic> {
        let e = self.primary()?;
        let more = match self.peek() {
            Ok(t) => matches!(
                t.kind,
                Tok::P(P::LParen | P::LBracket | P::Dot | P::Arrow | P::Inc | P::Dec)
            ),
            Err(e) => return Err(e),
        };
        if more {
            self.postfix_loop(e)
        } else {
            Ok(e)
        }
    }

    #[inline(never)]
    fn postfix_loop(&mut self, mut e: Expr) -> Result<Expr, Diagnostic> {
        let mut h = expr_height(&e);
        loop {
            self.check_height(h)?;
            let t = self.peek()?;
            e = match t.kind {
                Tok::P(P::LParen) => self.call(e)?,
                Tok::P(P::LBracket) => self.index(e)?,
                Tok::P(P::Dot) => self.member(e, false)?,
                Tok::P(P::Arrow) => self.member(e, true)?,
                Tok::P(P::Inc) => self.postfix_op(e, UnOp::PostInc)?,
                Tok::P(P::Dec) => self.postfix_op(e, UnOp::PostDec)?,
                _ => return Ok(e),
            };
            h = height_after_link(h, &e);
        }
    }

    #[inline(never)]
    fn call(&mut self, e: Expr) -> Result<Expr, Diagnostic> {
        let t = self.peek()?;
        let func = match &e.kind {
            ExprKind::Ident(name) if !name.contains('`') => name.clone(),
            ExprKind::Ident(_) => return Err(self.syntax_error(&t)),
            _ => {
                // Only a name can be called (`tick-1()` calls `1`): the
                // arguments are read, then the call refused, as libdtrace does.
                self.bump()?;
                self.expr_list(P::RParen)?;
                return Err(Diagnostic::new(
                    crate::Tag::D_FUNC_IDENT,
                    self.span_from(e.span),
                    "function designator is not of function type",
                ));
            }
        };
        self.bump()?;
        let args = self.expr_list(P::RParen)?;
        Ok(Expr {
            kind: ExprKind::Call { func, args },
            span: self.span_from(e.span),
        })
    }

    #[inline(never)]
    fn index(&mut self, e: Expr) -> Result<Expr, Diagnostic> {
        self.bump()?;
        let close = self.peek()?;
        if close.kind == Tok::P(P::RBracket) {
            return Err(self.syntax_error(&close));
        }
        let index = self.expr_list(P::RBracket)?;
        let span = self.span_from(e.span);
        Ok(Expr {
            kind: ExprKind::Index { base: bx(e), index },
            span,
        })
    }

    #[inline(never)]
    fn member(&mut self, e: Expr, arrow: bool) -> Result<Expr, Diagnostic> {
        self.bump()?;
        let (name, _) = self.expect_member_name()?;
        let span = self.span_from(e.span);
        Ok(Expr {
            kind: ExprKind::Member {
                base: bx(e),
                name,
                arrow,
            },
            span,
        })
    }

    #[inline(never)]
    fn postfix_op(&mut self, e: Expr, op: UnOp) -> Result<Expr, Diagnostic> {
        let t = self.bump()?;
        let span = e.span.to(t.span);
        Ok(Expr {
            kind: ExprKind::Unary { op, expr: bx(e) },
            span,
        })
    }

    /// Comma-separated assignment expressions up to `close` (consumed).
    fn expr_list(&mut self, close: P) -> Result<Vec<Expr>, Diagnostic> {
        let mut out = Vec::new();
        if self.eat(close)? {
            return Ok(out);
        }
        loop {
            out.push(self.assign_expr()?);
            let t = self.peek()?;
            if t.kind == Tok::P(close) {
                self.bump()?;
                return Ok(out);
            }
            if t.kind != Tok::P(P::Comma) {
                return Err(self.syntax_error(&t));
            }
            self.bump()?;
        }
    }

    fn primary(&mut self) -> Result<Expr, Diagnostic> {
        let t = self.peek()?;
        match t.kind {
            Tok::Kw(Kw::SelfKw) => self.scoped_var(t.span, true),
            Tok::Kw(Kw::This) => self.scoped_var(t.span, false),
            Tok::P(P::LParen) => self.paren(t.span),
            Tok::Kw(Kw::Offsetof) => self.offsetof(t.span),
            Tok::Kw(Kw::Xlate) => self.xlate(t.span),
            _ => self.atom(),
        }
    }

    /// A literal, identifier or aggregation.
    #[inline(never)]
    fn atom(&mut self) -> Result<Expr, Diagnostic> {
        let t = self.peek()?;
        let kind = match t.kind {
            Tok::Int {
                value,
                suffix,
                radix,
            } => ExprKind::Int {
                value,
                suffix,
                radix,
            },
            Tok::Char(c) => ExprKind::Char(c),
            Tok::Str(s) => ExprKind::Str(s),
            Tok::Ident(n) => ExprKind::Ident(n),
            Tok::Agg(n) => ExprKind::Agg(n),
            _ => return Err(self.syntax_error(&t)),
        };
        self.bump()?;
        Ok(Expr { kind, span: t.span })
    }

    /// `self->name` or `this->name`.
    #[inline(never)]
    fn scoped_var(&mut self, start: Span, is_self: bool) -> Result<Expr, Diagnostic> {
        self.bump()?;
        self.expect(P::Arrow)?;
        let (name, _) = self.expect_ident()?;
        let kind = if is_self {
            ExprKind::SelfVar(name)
        } else {
            ExprKind::ThisVar(name)
        };
        Ok(Expr {
            kind,
            span: self.span_from(start),
        })
    }

    #[inline(never)]
    fn paren(&mut self, start: Span) -> Result<Expr, Diagnostic> {
        self.bump()?;
        let e = self.expr()?;
        self.expect(P::RParen)?;
        Ok(Expr {
            kind: e.kind,
            span: self.span_from(start),
        })
    }

    #[inline(never)]
    fn offsetof(&mut self, start: Span) -> Result<Expr, Diagnostic> {
        self.bump()?;
        self.expect(P::LParen)?;
        let ty = self.type_name()?;
        self.expect(P::Comma)?;
        let (mut member, _) = self.expect_member_name()?;
        while self.is_p(P::Dot)? {
            self.bump()?;
            let (m, _) = self.expect_member_name()?;
            member.push('.');
            member.push_str(&m);
        }
        self.expect(P::RParen)?;
        Ok(Expr {
            kind: ExprKind::Offsetof { ty, member },
            span: self.span_from(start),
        })
    }

    #[inline(never)]
    fn xlate(&mut self, start: Span) -> Result<Expr, Diagnostic> {
        self.bump()?;
        self.expect(P::Lt)?;
        let ty = self.type_name()?;
        self.expect(P::Gt)?;
        self.expect(P::LParen)?;
        let e = self.expr()?;
        self.expect(P::RParen)?;
        let e = Expr {
            kind: ExprKind::Xlate { ty, expr: bx(e) },
            span: self.span_from(start),
        };
        self.check_height(expr_height(&e))?;
        Ok(e)
    }
}
