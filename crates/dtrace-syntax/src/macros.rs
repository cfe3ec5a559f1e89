//! Macro variables: `$0`..`$n` (command-line arguments), `$$n` (the same as
//! strings) and named ones such as `$target`, `$pid`, `$uid`.
//!
//! In code, `$n` expands to one token, read from the argument's text: `42`
//! an integer (`-5` a negated one), `foo` an identifier, `"foo"` a string.
//! The token carries the span of the `$n` token. `$$n` is always a string.
//! In probe descriptions the text is pasted in (`pid$target`).

use crate::diag::{Diagnostic, Tag};
use crate::lexer::{is_ident_char, is_ident_start, Lexer};
use crate::span::Span;
use crate::token::{Mode, Tok, Token, P};

enum MacroRef<'t> {
    /// `$n`; `None` if the number does not fit in `usize`.
    Arg(Option<usize>),
    Var(&'t str),
}

struct MacroUse<'t> {
    string: bool,
    what: MacroRef<'t>,
    /// The text as written, e.g. `$$1`.
    written: &'t str,
    end: usize,
}

impl<'a> Lexer<'a> {
    fn macro_ref(&self, i: usize) -> Option<MacroUse<'a>> {
        let b = self.bytes();
        let mut j = i + 1;
        let string = b.get(j) == Some(&b'$');
        if string {
            j += 1;
        }
        let start = j;
        let first = *b.get(j)?;
        let what = if first.is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            MacroRef::Arg(self.text_of(start, j).parse::<usize>().ok())
        } else if is_ident_start(first) {
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            MacroRef::Var(self.text_of(start, j))
        } else {
            return None;
        };
        Some(MacroUse {
            string,
            what,
            written: self.text_of(i, j),
            end: j,
        })
    }

    /// The macro's text, `Ok(None)` if it is undefined and `-xdefaultargs` is set.
    fn macro_lookup(&mut self, m: &MacroUse<'a>, span: Span) -> Result<Option<String>, Diagnostic> {
        let Some(opts) = self.options() else {
            return Ok(None);
        };
        match m.what {
            MacroRef::Arg(n) => {
                if let Some(v) = n.and_then(|n| opts.macro_args.get(n)) {
                    if let Some(u) = n.and_then(|n| self.args_used.get_mut(n)) {
                        *u = true;
                    }
                    return Ok(Some(v.clone()));
                }
                if opts.defaultargs {
                    return Ok(None);
                }
                Err(Diagnostic::new(
                    Tag::D_MACRO_UNDEF,
                    span,
                    format!("macro argument {} is not defined", m.written),
                ))
            }
            MacroRef::Var(name) => match opts.macro_vars.get(name) {
                Some(v) => Ok(Some(v.clone())),
                // -xdefaultargs covers named macro variables too: 0 or "".
                None if opts.defaultargs => Ok(None),
                None => Err(Diagnostic::new(
                    Tag::D_MACRO_UNDEF,
                    span,
                    format!("macro variable {} is not defined", m.written),
                )),
            },
        }
    }

    /// A macro variable in code at `i` (the `$`).
    pub(crate) fn macro_var(&mut self, i: usize) -> Result<(Vec<Token>, usize), Diagnostic> {
        let Some(m) = self.macro_ref(i) else {
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                self.span(i, i + 1),
                "syntax error near \"$\"",
            ));
        };
        let span = self.span(i, m.end);
        let value = self.macro_lookup(&m, span)?;
        let mk = |kind: Tok, part: u16| Token {
            kind,
            span,
            raw: i as u32,
            part,
        };
        if m.string {
            let s = value.unwrap_or_default().into_bytes();
            return Ok((vec![mk(Tok::Str(s), 0)], m.end));
        }
        let Some(text) = value else {
            let zero = Tok::Int {
                value: 0,
                suffix: crate::ast::IntSuffix::None,
                radix: 10,
            };
            return Ok((vec![mk(zero, 0)], m.end));
        };
        // Re-read the argument's text as D tokens (no further expansion). The
        // Guide: a macro expands to one token, an integer, identifier or
        // string; a sign before an integer (`-5`) is also accepted.
        let mut sub = Lexer::new(&text, span.source, None);
        let mut out = Vec::new();
        let mut pos = 0;
        loop {
            let (ts, e) = sub.lex(pos, Mode::Code).map_err(|mut d| {
                d.span = Some(span);
                if d.tag == Tag::D_INT_OFLOW {
                    // dtrace(1) names the macro argument.
                    d.tag = Tag::D_MACRO_OFLOW;
                    d.message = format!(
                        "macro argument {} constant {} results in integer overflow",
                        m.written,
                        text.trim()
                    );
                    return d;
                }
                d.with_note(format!("in the expansion of {} (\"{}\")", m.written, text))
            })?;
            pos = e;
            let Some(t) = ts.into_iter().next() else {
                break;
            };
            if t.kind == Tok::Eof || out.len() > 2 {
                break;
            }
            out.push(t.kind);
        }
        let ok = matches!(
            out.as_slice(),
            [_] | [Tok::P(P::Minus | P::Plus), Tok::Int { .. }]
        );
        if !ok {
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                span,
                format!("syntax error near \"{}\"", m.written),
            )
            .with_note(format!(
                "macro argument {} (\"{}\") is not an integer, identifier or string",
                m.written, text
            )));
        }
        let toks = out
            .into_iter()
            .enumerate()
            .map(|(k, kind)| mk(kind, k as u16))
            .collect();
        Ok((toks, m.end))
    }

    /// A macro variable inside a probe description: its text, pasted.
    pub(crate) fn macro_text(&mut self, i: usize) -> Result<(String, usize), Diagnostic> {
        let Some(m) = self.macro_ref(i) else {
            return Ok(("$".to_string(), i + 1));
        };
        let span = self.span(i, m.end);
        let value = self.macro_lookup(&m, span)?;
        let text = match value {
            Some(v) => v,
            None if m.string => String::new(),
            None => "0".to_string(),
        };
        Ok((text, m.end))
    }
}
