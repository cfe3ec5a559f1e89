//! The modal D lexer.
//!
//! The lexer is pull-based and position-addressed: the parser asks for the
//! token(s) at a byte offset in a [`Mode`]. At the start of a top-level clause
//! it asks in [`Mode::ProbeDesc`], where a run such as `syscall::*read*:entry`
//! or `pid$target:libc.so.6:malloc:entry` is one token; everywhere else it asks
//! in [`Mode::Code`]. Macro variables (`$1`, `$$1`, `$target`) are substituted
//! here. A `/` that closes a predicate is recognized as DTrace does: by looking
//! at the next non-blank character (`{`, `;`, `}` or the end of input).

use crate::diag::{Diagnostic, Tag};
use crate::literal;
use crate::span::{SourceId, Span};
use crate::token::{Kw, Mode, Tok, Token, P};
use crate::ParseOptions;

pub(crate) struct Lexer<'a> {
    text: &'a str,
    b: &'a [u8],
    id: SourceId,
    /// `None` in a sub-lexer re-reading a macro argument: no further expansion.
    opts: Option<&'a ParseOptions<'a>>,
    /// Which `$n` were referenced (for D_MACRO_UNUSED checks by the caller).
    pub(crate) args_used: Vec<bool>,
}

pub(crate) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

pub(crate) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Characters that may appear in a probe description.
fn is_pdesc_char(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'_' | b'.' | b':' | b'*' | b'?' | b'[' | b']' | b'!' | b'\\' | b'$' | b'-' | b'+'
        )
}

/// `1.5`, `1e5`: D has no floating-point constants.
fn looks_float(text: &str, next: u8, next2: u8) -> bool {
    let b = text.as_bytes();
    if b.len() > 1 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        return false;
    }
    if next == b'.' && next2.is_ascii_digit() {
        return true;
    }
    let rest = text.trim_start_matches(|c: char| c.is_ascii_digit());
    match rest.strip_prefix(['e', 'E']) {
        Some(exp) => !exp.is_empty() && exp.bytes().all(|c| c.is_ascii_digit()),
        None => false,
    }
}

fn is_pdesc_start(c: u8) -> bool {
    is_pdesc_char(c) && c != b'-' && c != b'+' && c != b']' && c != b'!'
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a str, id: SourceId, opts: Option<&'a ParseOptions<'a>>) -> Self {
        let n = opts.map(|o| o.macro_args.len()).unwrap_or(0);
        Lexer {
            text,
            b: text.as_bytes(),
            id,
            opts,
            args_used: vec![false; n],
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.b.len()
    }

    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.b
    }

    pub(crate) fn source(&self) -> SourceId {
        self.id
    }

    pub(crate) fn options(&self) -> Option<&'a ParseOptions<'a>> {
        self.opts
    }

    /// The whole text being lexed.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    pub(crate) fn text_of(&self, lo: usize, hi: usize) -> &'a str {
        self.text.get(lo..hi).unwrap_or("")
    }

    pub(crate) fn span(&self, lo: usize, hi: usize) -> Span {
        Span::new(self.id, lo as u32, hi as u32)
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn slice(&self, lo: usize, hi: usize) -> &'a str {
        self.text.get(lo..hi).unwrap_or("")
    }

    fn tok(&self, kind: Tok, lo: usize, hi: usize) -> Token {
        Token {
            kind,
            span: self.span(lo, hi),
            raw: lo as u32,
            part: 0,
        }
    }

    fn syntax_near(&self, lo: usize, hi: usize) -> Diagnostic {
        let t = String::from_utf8_lossy(self.b.get(lo..hi).unwrap_or(b"")).into_owned();
        Diagnostic::new(
            Tag::D_SYNTAX,
            self.span(lo, hi),
            format!("syntax error near \"{}\"", t),
        )
    }

    /// Is byte offset `i` the first non-blank character of its line?
    fn at_line_start(&self, i: usize) -> bool {
        let mut j = i;
        while j > 0 {
            match self.b[j - 1] {
                b'\n' => return true,
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => j -= 1,
                _ => return false,
            }
        }
        true
    }

    /// Skip blanks and comments; never fails (used for look-ahead).
    fn skip_blanks_quiet(&self, mut i: usize) -> usize {
        loop {
            let c = self.at(i);
            if c.is_ascii_whitespace() && i < self.b.len() {
                i += 1;
            } else if c == b'/' && self.at(i + 1) == b'*' {
                match self.text.get(i + 2..).and_then(|r| r.find("*/")) {
                    Some(k) => i = i + 2 + k + 2,
                    None => return self.b.len(),
                }
            } else if c == b'/' && self.at(i + 1) == b'/' {
                while i < self.b.len() && self.b[i] != b'\n' {
                    i += 1;
                }
            } else {
                return i;
            }
        }
    }

    /// Skip blanks, comments and preprocessor control lines. Returns the new
    /// offset, or a `#pragma D` token found on the way.
    fn skip_trivia(&mut self, mut i: usize) -> Result<(usize, Option<Token>), Diagnostic> {
        loop {
            let c = self.at(i);
            if i >= self.b.len() {
                return Ok((self.b.len(), None));
            }
            if c.is_ascii_whitespace() {
                i += 1;
            } else if c == b'/' && self.at(i + 1) == b'*' {
                match self.text.get(i + 2..).and_then(|r| r.find("*/")) {
                    Some(k) => i = i + 2 + k + 2,
                    None => {
                        // Reported where the input ends, as dtrace(1) does.
                        let end = self.b.len();
                        return Err(Diagnostic::new(
                            Tag::D_SYNTAX,
                            self.span(end, end),
                            "end-of-file encountered before matching */",
                        ));
                    }
                }
            } else if (c == b'/' && self.at(i + 1) == b'/')
                || (c == b'#' && i == 0 && self.at(1) == b'!')
            {
                // `//` comment, or a `#!` interpreter line.
                while i < self.b.len() && self.b[i] != b'\n' {
                    i += 1;
                }
            } else if c == b'#' && self.opts.is_some() && self.at_line_start(i) {
                let (end, tok) = self.control_line(i)?;
                i = end;
                if tok.is_some() {
                    return Ok((i, tok));
                }
            } else {
                return Ok((i, None));
            }
        }
    }

    /// A `#` line: `#pragma D ...` becomes a token; `# N "file"`, `#line`,
    /// `#ident` and other pragmas are skipped; other directives are errors
    /// (they need the C preprocessor, `-C`).
    fn control_line(&self, start: usize) -> Result<(usize, Option<Token>), Diagnostic> {
        // The logical line, with backslash-newline continuations.
        let mut end = start;
        let mut line = String::new();
        while end < self.b.len() && self.b[end] != b'\n' {
            if self.b[end] == b'\\' && self.at(end + 1) == b'\n' {
                line.push(' ');
                end += 2;
                continue;
            }
            line.push(self.b[end] as char);
            end += 1;
        }
        let body = line.get(1..).unwrap_or("");
        let words: Vec<&str> = body.split_whitespace().collect();
        let first = words.first().copied().unwrap_or("");
        if first == "pragma" {
            if words.get(1).copied() == Some("D") {
                // A null directive (`#pragma D` alone) is ignored, as in C.
                if words.len() < 3 {
                    return Ok((end, None));
                }
                // Keep non-ASCII bytes intact by re-slicing the source text;
                // a trailing comment is not part of the pragma.
                let text = self.slice(start + 1, end).replace("\\\n", " ");
                let words: Vec<String> = text
                    .split_whitespace()
                    .skip(2)
                    .take_while(|w| !w.starts_with("/*") && !w.starts_with("//"))
                    .map(|w| w.to_string())
                    .collect();
                let t = self.tok(Tok::Pragma(words), start, end);
                return Ok((end, Some(t)));
            }
            return Ok((end, None));
        }
        // `# N "file"` and `#line N`: line markers (see `span::scan_line_markers`).
        if first.bytes().all(|c| c.is_ascii_digit()) {
            return Ok((end, None));
        }
        if first.is_empty() || first == "line" || first == "ident" {
            return Ok((end, None));
        }
        let mut wend = start + 1;
        while wend < self.b.len() && (self.b[wend] == b' ' || self.b[wend] == b'\t') {
            wend += 1;
        }
        while wend < self.b.len() && is_ident_char(self.b[wend]) {
            wend += 1;
        }
        Err(Diagnostic::new(
            Tag::D_PRAGCTL_INVAL,
            self.span(start, wend),
            format!("invalid control directive: #{first}"),
        )
        .with_note("preprocessor directives need the C preprocessor (-C)"))
    }

    /// Lex at `pos` in `mode`. Returns the token(s) (several only for a macro
    /// argument that expands to more than one token) and the offset after them.
    pub(crate) fn lex(
        &mut self,
        pos: usize,
        mode: Mode,
    ) -> Result<(Vec<Token>, usize), Diagnostic> {
        let (i, pragma) = self.skip_trivia(pos)?;
        if let Some(t) = pragma {
            return Ok((vec![t], i));
        }
        if i >= self.b.len() {
            let n = self.b.len();
            return Ok((vec![self.tok(Tok::Eof, n, n)], n));
        }
        let c = self.b[i];
        if mode == Mode::ProbeDesc && is_pdesc_start(c) {
            return self.probe_desc(i);
        }
        if c.is_ascii_digit() {
            return self.number(i).map(|(t, e)| (vec![t], e));
        }
        if c == b'\'' || c == b'"' {
            return self.quoted(i).map(|(t, e)| (vec![t], e));
        }
        if c == b'@' {
            let mut e = i + 1;
            while e < self.b.len() && is_ident_char(self.b[e]) {
                e += 1;
            }
            let name = self.slice(i + 1, e).to_string();
            return Ok((vec![self.tok(Tok::Agg(name), i, e)], e));
        }
        if c == b'$' && self.opts.is_some() {
            return self.macro_var(i);
        }
        if is_ident_start(c) || c == b'`' {
            return self.ident(i).map(|(t, e)| (vec![t], e));
        }
        for &p in P::ALL_BY_LEN {
            let t = p.text().as_bytes();
            if self.b[i..].starts_with(t) {
                let e = i + t.len();
                if p == P::Slash {
                    let k = self.skip_blanks_quiet(e);
                    if k >= self.b.len() || matches!(self.b[k], b'{' | b';' | b'}') {
                        return Ok((vec![self.tok(Tok::SlashEnd, i, e)], e));
                    }
                }
                return Ok((vec![self.tok(Tok::P(p), i, e)], e));
            }
        }
        // Report a whole UTF-8 character.
        let clen = self
            .text
            .get(i..)
            .and_then(|r| r.chars().next())
            .map(|ch| ch.len_utf8())
            .unwrap_or(1);
        Err(self.syntax_near(i, i + clen))
    }

    fn number(&self, i: usize) -> Result<(Token, usize), Diagnostic> {
        let mut e = i;
        while e < self.b.len() && is_ident_char(self.b[e]) {
            e += 1;
        }
        let text = self.slice(i, e);
        if looks_float(text, self.at(e), self.at(e + 1)) {
            let mut f = e;
            while f < self.b.len() && (is_ident_char(self.b[f]) || self.b[f] == b'.') {
                f += 1;
            }
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                self.span(i, f),
                "floating-point constants are not permitted",
            ));
        }
        let lit = literal::parse_int(text, self.span(i, e))?;
        let kind = Tok::Int {
            value: lit.value,
            suffix: lit.suffix,
            radix: lit.radix,
        };
        Ok((self.tok(kind, i, e), e))
    }

    /// A character constant or string literal starting at the quote `b[i]`.
    fn quoted(&self, i: usize) -> Result<(Token, usize), Diagnostic> {
        let q = self.b[i];
        let mut j = i + 1;
        loop {
            match self.b.get(j) {
                None => {
                    let what = if q == b'"' {
                        "string literal"
                    } else {
                        "character constant"
                    };
                    return Err(Diagnostic::new(
                        Tag::D_SYNTAX,
                        self.span(i, j.min(self.b.len())),
                        format!("end-of-file encountered in {}", what),
                    ));
                }
                Some(b'\n') => {
                    let what = if q == b'"' {
                        "string literal"
                    } else {
                        "character constant"
                    };
                    // On the line after the newline, where dtrace(1)'s lexer is.
                    return Err(Diagnostic::new(
                        Tag::D_STR_NL,
                        self.span(j + 1, j + 1),
                        format!("newline encountered in {}", what),
                    ));
                }
                Some(b'\\') => j += 2,
                Some(&c) if c == q => break,
                Some(_) => j += 1,
            }
        }
        let body = self.b.get(i + 1..j).unwrap_or(b"");
        let span = self.span(i, j + 1);
        let kind = if q == b'"' {
            Tok::Str(literal::parse_str(body, span)?)
        } else {
            Tok::Char(literal::parse_char(body, span)?)
        };
        Ok((self.tok(kind, i, j + 1), j + 1))
    }

    /// An identifier or keyword, possibly scoped: ``mod`name``, `` `name``.
    fn ident(&self, i: usize) -> Result<(Token, usize), Diagnostic> {
        if self.b[i] == b'`' {
            // A backquote alone is an identifier too (DTrace's identifiers may
            // hold backquotes): `` ` `` names no symbol, which sema reports.
            if !is_ident_start(self.at(i + 1)) {
                return Ok((self.tok(Tok::Ident("`".into()), i, i + 1), i + 1));
            }
            let mut e = i + 1;
            while e < self.b.len() && is_ident_char(self.b[e]) {
                e += 1;
            }
            return Ok((self.tok(Tok::Ident(self.slice(i, e).into()), i, e), e));
        }
        let mut e = i;
        while e < self.b.len() && is_ident_char(self.b[e]) {
            e += 1;
        }
        // A module scope may contain dots and dashes: ``libc.so.6`errno``.
        let mut m = e;
        while m < self.b.len()
            && (is_ident_char(self.b[m]) || self.b[m] == b'.' || self.b[m] == b'-')
        {
            m += 1;
        }
        if self.at(m) == b'`' && is_ident_start(self.at(m + 1)) {
            let mut f = m + 1;
            while f < self.b.len() && is_ident_char(self.b[f]) {
                f += 1;
            }
            return Ok((self.tok(Tok::Ident(self.slice(i, f).into()), i, f), f));
        }
        let word = self.slice(i, e);
        let kind = match Kw::from_ident(word) {
            Some(k) => Tok::Kw(k),
            None => Tok::Ident(word.to_string()),
        };
        Ok((self.tok(kind, i, e), e))
    }

    /// One probe description starting at `i`, with macro variables substituted.
    fn probe_desc(&mut self, i: usize) -> Result<(Vec<Token>, usize), Diagnostic> {
        let mut out = String::new();
        let mut j = i;
        while j < self.b.len() && is_pdesc_char(self.b[j]) {
            match self.b[j] {
                b'$' => {
                    let (text, e) = self.macro_text(j)?;
                    out.push_str(&text);
                    j = e;
                }
                b'\\' if j + 1 < self.b.len() && !self.b[j + 1].is_ascii_whitespace() => {
                    out.push('\\');
                    out.push(self.b[j + 1] as char);
                    j += 2;
                }
                c => {
                    out.push(c as char);
                    j += 1;
                }
            }
        }
        Ok((vec![self.tok(Tok::ProbeDesc(out), i, j)], j))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn toks(src: &str, mode: Mode) -> Result<Vec<Tok>, Diagnostic> {
        let vars = HashMap::new();
        let args = vec!["x.d".to_string()];
        let opts = ParseOptions {
            macro_args: &args,
            macro_vars: &vars,
            defaultargs: false,
            is_type_name: &|_| false,
            is_d_identifier: &|_| false,
            pspec: false,
        };
        let mut lx = Lexer::new(src, SourceId(0), Some(&opts));
        let mut pos = 0;
        let mut out = Vec::new();
        loop {
            let (ts, e) = lx.lex(pos, mode)?;
            pos = e;
            for t in ts {
                if t.kind == Tok::Eof {
                    return Ok(out);
                }
                out.push(t.kind);
            }
        }
    }

    #[test]
    fn code_tokens() {
        let t = toks(
            "a->b >>= 0x10 'c' \"s\\n\" @q @ `x vmlinux`jiffies libc.so.6`e",
            Mode::Code,
        )
        .unwrap();
        assert_eq!(
            t,
            vec![
                Tok::Ident("a".into()),
                Tok::P(P::Arrow),
                Tok::Ident("b".into()),
                Tok::P(P::ShrAssign),
                Tok::Int {
                    value: 16,
                    suffix: crate::ast::IntSuffix::None,
                    radix: 16
                },
                Tok::Char(99),
                Tok::Str(b"s\n".to_vec()),
                Tok::Agg("q".into()),
                Tok::Agg(String::new()),
                Tok::Ident("`x".into()),
                Tok::Ident("vmlinux`jiffies".into()),
                Tok::Ident("libc.so.6`e".into()),
            ]
        );
    }

    #[test]
    fn slash_end() {
        let t = toks("x / 2 / {", Mode::Code).unwrap();
        assert_eq!(t[1], Tok::P(P::Slash));
        assert_eq!(t[3], Tok::SlashEnd);
        let t = toks("x /* c */ / /* d */\n", Mode::Code).unwrap();
        assert_eq!(t[1], Tok::SlashEnd);
    }

    #[test]
    fn pdesc_and_pragma() {
        let t = toks("#!/usr/sbin/dtrace -s\n#pragma D option quiet\n# 1 \"x.d\"\nsyscall::*read*:entry,tick-1sec\n", Mode::ProbeDesc).unwrap();
        assert_eq!(
            t,
            vec![
                Tok::Pragma(vec!["option".into(), "quiet".into()]),
                Tok::ProbeDesc("syscall::*read*:entry".into()),
                Tok::P(P::Comma),
                Tok::ProbeDesc("tick-1sec".into()),
            ]
        );
    }

    #[test]
    fn floats_rejected() {
        assert_eq!(
            toks("1.5", Mode::Code).unwrap_err().message,
            "floating-point constants are not permitted"
        );
        assert_eq!(
            toks("1e5", Mode::Code).unwrap_err().message,
            "floating-point constants are not permitted"
        );
        assert!(toks("0x1e5", Mode::Code).is_ok());
    }
}
