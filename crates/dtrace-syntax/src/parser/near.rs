//! The text dtrace(1) shows after `syntax error near` when the offending token
//! is an identifier.
//!
//! libdtrace's lexer decides whether an identifier in D code that it does not
//! yet know (not a D built-in or global, not remembered from before) might be a
//! variable by peeking past the blanks at the next character, then pushing the
//! characters back. That push-back leaves the token's text unterminated, so a
//! syntax error at such an identifier quotes the rest of its line
//! (`near "vnode_t, v_no_such_member));"`), the blanks right after the name
//! turned into spaces. An identifier the peek saw followed by `++`, `--`, `[`,
//! `=`, `;` or (outside parentheses) `,` is remembered as a likely variable and
//! never peeked at again; neither is a name after `.`, `->` or a `struct`,
//! `union` or `enum` keyword.
//!
//! Also here: the `pspec` option, under which the top level reads the longest
//! run of probe-description characters as a probe description even where a
//! shorter keyword or type name starts it (`int*x` is a description, not the
//! declaration `int *x`).

use super::Parser;
use crate::token::{Kw, Tok, Token, P};

const BLANKS: &[u8] = b"\x0c\n\r\t\x0b ";

impl<'a> Parser<'a> {
    /// Note a consumed token: remember an identifier the lexer's peek would
    /// take for a variable, and whether the next name follows `.`/`->` or a
    /// struct/union/enum keyword.
    pub(crate) fn note_ident(&mut self, t: &Token) {
        let after_sou = self.after_sou;
        self.after_sou = matches!(
            t.kind,
            Tok::P(P::Dot) | Tok::P(P::Arrow) | Tok::Kw(Kw::Struct | Kw::Union | Kw::Enum)
        );
        let Tok::Ident(name) = &t.kind else {
            return;
        };
        if after_sou || t.part != 0 || self.idents.contains_key(name) {
            return;
        }
        let b = self.lx.bytes();
        let mut i = t.span.hi as usize;
        while b.get(i).is_some_and(|c| BLANKS.contains(c)) {
            i += 1;
        }
        let next = b.get(i + 1).copied();
        let variable = match b.get(i) {
            Some(c @ (b'+' | b'-')) => next == Some(*c),
            Some(b'=') => next != Some(b'='),
            Some(b'[' | b';') => true,
            Some(b',') => self.parens == 0,
            _ => false,
        };
        if variable {
            self.idents.insert(name.clone(), t.span.lo);
        }
    }

    /// The text a syntax error at token `t` quotes: for an identifier the
    /// lexer peeked past, the rest of its line; otherwise the token.
    pub(crate) fn near_text(&self, t: &Token) -> String {
        let (lo, hi) = (t.span.lo as usize, t.span.hi as usize);
        let token = self.lx.text_of(lo, hi).to_string();
        let Tok::Ident(name) = &t.kind else {
            return token;
        };
        let known = self.idents.get(name).is_some_and(|at| *at < t.span.lo)
            || (self.opts.is_d_identifier)(name);
        if self.after_sou || t.part != 0 || known {
            return token;
        }
        let b = self.lx.bytes();
        let mut i = hi;
        while b.get(i).is_some_and(|c| BLANKS.contains(c)) {
            i += 1;
        }
        // The blanks come back as spaces, the newlines among them last.
        let run = &b[hi..i];
        let newlines = run.iter().filter(|c| **c == b'\n').count();
        if newlines > 0 {
            return format!("{token}{}", " ".repeat(run.len() - newlines));
        }
        let rest = self.lx.text_of(i, b.len());
        let line = rest.split('\n').next().unwrap_or("");
        format!("{token}{}{line}", " ".repeat(run.len()))
    }

    /// Note a `#pragma D` line: `option pspec` (or `pspec=...`) turns the
    /// option on for the rest of the source.
    pub(crate) fn note_pspec(&mut self, words: &[String]) {
        if words.first().map(String::as_str) == Some("option") {
            for w in &words[1..] {
                let (name, value) = w.split_once('=').unwrap_or((w, "set"));
                if name == "pspec" {
                    self.pspec = !matches!(value, "unset" | "0");
                }
            }
        }
    }

    /// Under `pspec`, whether top-level token `t` (a keyword or name) begins
    /// a longer run of probe-description characters.
    pub(crate) fn is_pspec_run(&self, t: &Token) -> bool {
        if !self.pspec || !matches!(t.kind, Tok::Ident(_) | Tok::Kw(_)) {
            return false;
        }
        let b = self.lx.bytes();
        let mut i = t.span.lo as usize;
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || b"-$:_.`?*\\[]!".contains(c))
        {
            i += 1;
        }
        i > t.span.hi as usize
    }
}
