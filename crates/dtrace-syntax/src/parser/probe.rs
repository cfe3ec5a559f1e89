//! Clauses: `probe-descriptions [/predicate/] [{ statements }]`.

use super::Parser;
use crate::ast::{Clause, ProbeSpec};
use crate::diag::{Diagnostic, Tag};
use crate::token::{Mode, Tok, P};

impl<'a> Parser<'a> {
    /// A clause; the parser is in [`Mode::ProbeDesc`] at its first description.
    pub(crate) fn clause(&mut self) -> Result<Clause, Diagnostic> {
        let mut probes = Vec::new();
        loop {
            let t = self.peek()?;
            let Tok::ProbeDesc(text) = t.kind else {
                return Err(self.syntax_error(&t));
            };
            self.bump()?;
            if text.bytes().filter(|&c| c == b':').count() > 3 {
                return Err(Diagnostic::new(
                    Tag::D_PDESC_INVAL,
                    t.span,
                    format!(
                        "invalid probe description \"{}\": Overspecified probe description",
                        text
                    ),
                ));
            }
            probes.push(ProbeSpec { text, span: t.span });
            if !self.eat(P::Comma)? {
                break;
            }
        }
        let start = probes.first().map(|p| p.span).unwrap_or_default();
        // Still in probe-description mode: only `/` or `{` continue this clause.
        let next = self.peek_kind()?;
        let mut predicate = None;
        if matches!(next, Tok::P(P::Slash) | Tok::SlashEnd) {
            self.set_mode(Mode::Code);
            self.bump()?;
            self.in_pred = true;
            let e = self.expr();
            self.in_pred = false;
            let e = e?;
            let t = self.peek()?;
            if t.kind != Tok::SlashEnd {
                return Err(self.syntax_error(&t));
            }
            self.bump()?;
            predicate = Some(e);
        }
        // Without a predicate we are still in probe-description mode here, so a
        // following bodyless clause (`BEGIN` then `tick-1sec`) lexes correctly.
        let mut body = Vec::new();
        if predicate.is_none() && self.from_file && !self.is_p(P::LBrace)? {
            // dtrace(1) -n BEGIN is a clause; in a file, a bare description is
            // an error (the next description, or the end, follows it).
            let last = probes.last().map(|p| p.span).unwrap_or(start);
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                last,
                "expected predicate and/or actions following probe description",
            ));
        }
        if self.is_p(P::LBrace)? {
            self.set_mode(Mode::Code);
            self.bump()?;
            body = self.stmts_until_rbrace()?;
        }
        Ok(Clause {
            probes,
            predicate,
            body,
            span: self.span_from(start),
        })
    }
}
