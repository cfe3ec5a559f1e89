//! The hand-written recursive-descent parser for D.
//!
//! Layout: this file holds the token buffer, the top-level loop and shared
//! helpers; `probe.rs` parses clauses (probe descriptions, predicate, body),
//! `stmt.rs` statements, `expr.rs` expressions and `decl.rs` declarations,
//! type names, translators and provider declarations.
//!
//! Architecture invariant: the parser never panics and always terminates; it
//! returns the first error as a [`Diagnostic`]. Every loop consumes a token or
//! stops, and recursion is capped at [`MAX_DEPTH`].

mod decl;
mod expr;
mod height;
mod near;
mod probe;
mod stmt;

use std::collections::{HashMap, HashSet, VecDeque};

use crate::ast::{Item, Pragma, Program};
use crate::diag::{Diagnostic, Tag};
use crate::lexer::Lexer;
use crate::span::{SourceId, SourceMap, Span};
use crate::token::{Kw, Mode, Tok, Token, P};

/// Deepest nesting of expressions, statements and declarators accepted.
pub const MAX_DEPTH: u32 = 1000;

/// Most stack the parser lets itself use, whatever the nesting count. The
/// parser may run on a 2 MiB thread, and debug builds use several KiB of stack
/// per nesting level, so depth alone cannot rule out an overflow.
pub const STACK_BUDGET: usize = 1 << 20;

/// An approximate stack address: the address of a local.
#[inline(never)]
fn stack_mark() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// What the parser needs to know from outside the program text.
pub struct ParseOptions<'a> {
    /// `$0..$n`: `$0` is the script name (or "dtrace" for -n), `$1..` the extra
    /// command-line arguments.
    pub macro_args: &'a [String],
    /// Named macro variables: "target", "pid", "ppid", "uid", "gid", "euid",
    /// "egid", "sid", "pgid", "projid" -> decimal text.
    pub macro_vars: &'a HashMap<String, String>,
    /// `-xdefaultargs`: undefined `$n` become 0 / "" instead of an error.
    pub defaultargs: bool,
    /// Typedef-aware parsing: is this identifier a type name known outside the
    /// program (e.g. kernel BTF)?
    pub is_type_name: &'a dyn Fn(&str) -> bool,
    /// Is this identifier one of D's own (a built-in variable or function) or
    /// a global the consumer already knows? Such names are never peeked past
    /// (see `near.rs`).
    pub is_d_identifier: &'a dyn Fn(&str) -> bool,
    /// The `pspec` option: at the top level, the longest run of probe
    /// description characters is a probe description (`int*x`), as
    /// `#pragma D option pspec` also sets.
    pub pspec: bool,
}

/// Facts about a parse besides the AST.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseInfo {
    /// `macro_args_used[n]` is true if `$n` or `$$n` was referenced (DTrace
    /// reports unreferenced arguments as D_MACRO_UNUSED unless told not to).
    pub macro_args_used: Vec<bool>,
    /// Typedef names the program declared.
    pub typedefs: Vec<String>,
}

/// Parse one source of a D program.
pub fn parse(
    map: &SourceMap,
    source: SourceId,
    opts: &ParseOptions,
) -> Result<Program, Diagnostic> {
    parse_with_info(map, source, opts).map(|(p, _)| p)
}

/// The items of `source` that parse before its first syntax error (all of them
/// when there is none). libdtrace acts on each declaration as its parser reads
/// it, so an error in a declaration is reported before a syntax error after it:
/// the compiler checks these declarations when parsing fails.
pub fn parse_prefix(map: &SourceMap, source: SourceId, opts: &ParseOptions) -> Program {
    let Some(file) = map.get(source) else {
        return Program { items: Vec::new() };
    };
    let mut p = Parser::new(&file.text, source, opts);
    p.file = Some(file);
    p.from_file = matches!(file.kind, crate::span::SourceKind::Script { .. });
    let mut items = Vec::new();
    let _ = p.program_into(&mut items);
    Program { items }
}

/// Like [`parse`], also returning [`ParseInfo`].
pub fn parse_with_info(
    map: &SourceMap,
    source: SourceId,
    opts: &ParseOptions,
) -> Result<(Program, ParseInfo), Diagnostic> {
    let Some(file) = map.get(source) else {
        return Err(Diagnostic::spanless(
            Tag::D_SYNTAX,
            format!("no such source: {}", source.0),
        ));
    };
    let mut p = Parser::new(&file.text, source, opts);
    p.file = Some(file);
    p.from_file = matches!(file.kind, crate::span::SourceKind::Script { .. });
    let items = p.program()?;
    if p.from_file && items.is_empty() {
        let end = file.text.len() as u32;
        return Err(Diagnostic::new(
            Tag::D_EMPTY,
            Span::new(source, end, end),
            "empty D program translation unit",
        ));
    }
    let mut typedefs: Vec<String> = p.typedefs.into_iter().collect();
    typedefs.sort();
    let info = ParseInfo {
        macro_args_used: p.lx.args_used,
        typedefs,
    };
    Ok((Program { items }, info))
}

pub(crate) struct Parser<'a> {
    pub(crate) lx: Lexer<'a>,
    opts: &'a ParseOptions<'a>,
    /// Look-ahead tokens, lexed in `mode`, starting at the parser's position.
    buf: VecDeque<Token>,
    /// Source offset after the last buffered token.
    pos: usize,
    /// Tokens of a multi-token macro expansion to drop after re-lexing.
    skip_parts: u16,
    mode: Mode,
    /// End offset of the last consumed token.
    prev_end: u32,
    pub(crate) typedefs: HashSet<String>,
    /// `struct T` / `union T` given a body so far in this source: another body
    /// for one is a redeclaration, reported at its `{` as libdtrace does.
    pub(crate) sou_bodies: HashSet<String>,
    depth: u32,
    /// [`stack_mark`] when parsing started.
    stack_base: usize,
    /// Inside `/ ... /`: a [`Tok::SlashEnd`] closes the predicate.
    in_pred: bool,
    /// `(` and `[` consumed and not yet closed: dtrace(1)'s lexer counts them to
    /// name an unbalanced one.
    parens: u32,
    brackets: u32,
    /// Parsing a script file (not a `-n`/`-P`... specifier), where a probe
    /// description must be followed by a predicate or actions.
    pub(crate) from_file: bool,
    pending_pragmas: Vec<Pragma>,
    last_pragma_lo: Option<u32>,
    /// Loops (an extension) enclosing the statement being parsed.
    pub(crate) loops: u32,
    /// The source being parsed (for the lines loops are reported at).
    pub(crate) file: Option<&'a crate::span::SourceFile>,
    /// Identifiers remembered as likely variables, with where first seen
    /// (libdtrace's lexer stops peeking past them; see `near.rs`).
    pub(crate) idents: HashMap<String, u32>,
    /// The last consumed token was `.`, `->`, `struct`, `union` or `enum`.
    pub(crate) after_sou: bool,
    /// `#pragma D option pspec`: at the top level, a run of probe-description
    /// characters is always a probe description (see `near.rs`).
    pub(crate) pspec: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, source: SourceId, opts: &'a ParseOptions<'a>) -> Parser<'a> {
        Parser {
            lx: Lexer::new(text, source, Some(opts)),
            opts,
            buf: VecDeque::new(),
            pos: 0,
            skip_parts: 0,
            mode: Mode::Code,
            prev_end: 0,
            typedefs: HashSet::new(),
            sou_bodies: HashSet::new(),
            depth: 0,
            stack_base: stack_mark(),
            in_pred: false,
            parens: 0,
            brackets: 0,
            from_file: false,
            pending_pragmas: Vec::new(),
            last_pragma_lo: None,
            loops: 0,
            file: None,
            idents: HashMap::new(),
            after_sou: false,
            pspec: opts.pspec,
        }
    }

    // ----- token buffer -------------------------------------------------

    /// Make sure `buf[n]` exists.
    fn fill(&mut self, n: usize) -> Result<(), Diagnostic> {
        while self.buf.len() <= n {
            if let Some(last) = self.buf.back() {
                if last.kind == Tok::Eof {
                    let t = last.clone();
                    self.buf.push_back(t);
                    continue;
                }
            }
            let (toks, end) = self.lx.lex(self.pos, self.mode)?;
            self.pos = end;
            let skip = std::mem::take(&mut self.skip_parts) as usize;
            for t in toks.into_iter().skip(skip) {
                if let Tok::Pragma(words) = &t.kind {
                    if self.last_pragma_lo.map_or(true, |lo| t.span.lo > lo) {
                        self.last_pragma_lo = Some(t.span.lo);
                        self.note_pspec(words);
                        self.pending_pragmas.push(Pragma {
                            words: words.clone(),
                            span: t.span,
                        });
                    }
                    continue;
                }
                self.buf.push_back(t);
            }
        }
        Ok(())
    }

    pub(crate) fn peek(&mut self) -> Result<Token, Diagnostic> {
        self.peek_at(0)
    }

    pub(crate) fn peek_at(&mut self, n: usize) -> Result<Token, Diagnostic> {
        self.fill(n)?;
        match self.buf.get(n) {
            Some(t) => Ok(t.clone()),
            None => Err(self.eof_error()),
        }
    }

    pub(crate) fn peek_kind(&mut self) -> Result<Tok, Diagnostic> {
        self.peek().map(|t| t.kind)
    }

    pub(crate) fn bump(&mut self) -> Result<Token, Diagnostic> {
        self.fill(0)?;
        match self.buf.pop_front() {
            Some(t) => {
                if t.kind != Tok::Eof {
                    self.prev_end = t.span.hi;
                }
                self.note_ident(&t);
                match t.kind {
                    Tok::P(P::LParen) => self.parens += 1,
                    Tok::P(P::RParen) => self.parens = self.parens.saturating_sub(1),
                    Tok::P(P::LBracket) => self.brackets += 1,
                    Tok::P(P::RBracket) => self.brackets = self.brackets.saturating_sub(1),
                    _ => {}
                }
                Ok(t)
            }
            None => Err(self.eof_error()),
        }
    }

    /// Switch lexing mode; unconsumed look-ahead is re-lexed in the new mode.
    pub(crate) fn set_mode(&mut self, mode: Mode) {
        if self.mode == mode {
            return;
        }
        self.mode = mode;
        if let Some(first) = self.buf.front() {
            self.pos = first.raw as usize;
            self.skip_parts = first.part;
            self.buf.clear();
        }
    }

    pub(crate) fn is_p(&mut self, p: P) -> Result<bool, Diagnostic> {
        Ok(self.peek_kind()? == Tok::P(p))
    }

    pub(crate) fn eat(&mut self, p: P) -> Result<bool, Diagnostic> {
        if self.is_p(p)? {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    pub(crate) fn expect(&mut self, p: P) -> Result<Token, Diagnostic> {
        let t = self.peek()?;
        if t.kind == Tok::P(p) {
            self.bump()
        } else {
            Err(self.syntax_error(&t))
        }
    }

    /// An identifier (not a keyword); error otherwise.
    pub(crate) fn expect_ident(&mut self) -> Result<(String, Span), Diagnostic> {
        let t = self.peek()?;
        match t.kind {
            Tok::Ident(name) => {
                self.bump()?;
                Ok((name, t.span))
            }
            _ => Err(self.syntax_error(&t)),
        }
    }

    /// A struct or union member name after `.`, `->`, in `offsetof` or a
    /// translator: D keywords are allowed (`atomic_t` has a `counter`).
    pub(crate) fn expect_member_name(&mut self) -> Result<(String, Span), Diagnostic> {
        let t = self.peek()?;
        match t.kind {
            Tok::Ident(name) if !name.contains('`') => {
                self.bump()?;
                Ok((name, t.span))
            }
            Tok::Kw(_) => {
                self.bump()?;
                let text = self.lx.text_of(t.span.lo as usize, t.span.hi as usize);
                Ok((text.to_string(), t.span))
            }
            _ => Err(self.syntax_error(&t)),
        }
    }

    // ----- spans and errors ---------------------------------------------

    pub(crate) fn source(&self) -> SourceId {
        self.lx.source()
    }

    /// From `start` to the end of the last consumed token.
    pub(crate) fn span_from(&self, start: Span) -> Span {
        Span::new(start.source, start.lo, self.prev_end.max(start.hi))
    }

    fn eof_error(&self) -> Diagnostic {
        let n = self.lx.len() as u32;
        Diagnostic::new(
            Tag::D_SYNTAX,
            Span::new(self.source(), n, n),
            "syntax error near end of input",
        )
    }

    /// `syntax error near "TOKEN"` (or `near end of input`).
    pub(crate) fn syntax_error(&self, t: &Token) -> Diagnostic {
        if t.kind == Tok::Eof {
            return self.eof_error();
        }
        // dtrace(1)'s lexer names unbalanced parentheses and brackets.
        let unbalanced = match t.kind {
            Tok::P(P::RParen) if self.parens == 0 => Some("extra ) in input stream"),
            Tok::P(P::RBracket) if self.brackets == 0 => Some("extra ] in input stream"),
            Tok::SlashEnd if self.in_pred && self.parens > 0 => {
                Some("closing ) expected in predicate before /")
            }
            Tok::SlashEnd if self.in_pred && self.brackets > 0 => {
                Some("closing ] expected in predicate before /")
            }
            _ => None,
        };
        if let Some(msg) = unbalanced {
            // Where the lexer stands: a closing `/` is recognized by looking
            // past the blanks after it.
            let mut at = t.span.hi as usize;
            if t.kind == Tok::SlashEnd {
                let b = self.lx.bytes();
                while b.get(at).is_some_and(|c| c.is_ascii_whitespace()) {
                    at += 1;
                }
            }
            let at = at as u32;
            return Diagnostic::new(Tag::D_SYNTAX, Span::new(t.span.source, at, at), msg);
        }
        let text = self.near_text(t);
        Diagnostic::new(
            Tag::D_SYNTAX,
            t.span,
            format!("syntax error near \"{}\"", text),
        )
    }

    /// Count one level of nesting; fails past [`MAX_DEPTH`] or [`STACK_BUDGET`].
    pub(crate) fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_DEPTH || stack_mark().abs_diff(self.stack_base) > STACK_BUDGET {
            let span = match self.peek() {
                Ok(t) => t.span,
                Err(_) => Span::new(self.source(), self.prev_end, self.prev_end),
            };
            return Err(self.too_deep(span));
        }
        Ok(())
    }

    /// Fail if a tree has grown taller than [`MAX_DEPTH`].
    pub(crate) fn check_height(&mut self, h: u32) -> Result<(), Diagnostic> {
        if h > MAX_DEPTH {
            let span = Span::new(self.source(), self.prev_end, self.prev_end);
            return Err(self.too_deep(span));
        }
        Ok(())
    }

    pub(crate) fn too_deep(&self, span: Span) -> Diagnostic {
        Diagnostic::new(Tag::D_SYNTAX, span, "program is nested too deeply")
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ----- type names ----------------------------------------------------

    /// Is this identifier a type name: a typedef of the program or one known
    /// outside it? Scoped names (``vmlinux`pid_t``) are checked whole and by
    /// their last part.
    pub(crate) fn is_type_ident(&self, name: &str) -> bool {
        let check = |n: &str| self.typedefs.contains(n) || (self.opts.is_type_name)(n);
        if check(name) {
            return true;
        }
        match name.rfind('`') {
            Some(k) if k > 0 => check(&name[k + 1..]),
            _ => false,
        }
    }

    /// Can this token begin a type name (in a cast, `sizeof`, parameters)?
    pub(crate) fn starts_type(&self, t: &Token) -> bool {
        match &t.kind {
            Tok::Kw(k) => k.is_type_keyword() || k.is_qualifier(),
            Tok::Ident(n) => self.is_type_ident(n),
            _ => false,
        }
    }

    /// Does a declaration start here (at top level or as a statement)?
    pub(crate) fn starts_decl(&mut self) -> Result<bool, Diagnostic> {
        let t = self.peek()?;
        Ok(match &t.kind {
            Tok::Kw(Kw::SelfKw | Kw::This) => {
                // `self int x;`, or `self x;` (the type defaults to int, as in C).
                let n = self.peek_at(1)?;
                self.starts_type(&n)
                    || matches!(n.kind, Tok::Kw(k) if k.is_storage())
                    || matches!(n.kind, Tok::Ident(_))
            }
            Tok::Kw(k) if k.is_storage() || k.is_type_keyword() || k.is_qualifier() => true,
            Tok::Ident(n) => {
                // A type name followed by something a declarator can start with.
                // The next token is looked at first: asking whether `n` names a
                // type may reach a type source (kernel BTF), and `BEGIN {` or
                // `x = 1;` need not ask.
                let next = self.lx.bytes().get(t.span.hi as usize).copied();
                next != Some(b':')
                    && matches!(
                        self.peek_at(1).map(|t| t.kind),
                        Ok(Tok::Ident(_)) | Ok(Tok::P(P::Star)) | Ok(Tok::P(P::LParen))
                    )
                    && self.is_type_ident(n)
            }
            _ => false,
        })
    }

    // ----- top level -------------------------------------------------------

    fn flush_pragmas(&mut self, items: &mut Vec<Item>) {
        items.extend(self.pending_pragmas.drain(..).map(Item::Pragma));
    }

    fn program(&mut self) -> Result<Vec<Item>, Diagnostic> {
        let mut items = Vec::new();
        self.program_into(&mut items)?;
        Ok(items)
    }

    /// The items of the program, into `items` as they are parsed.
    fn program_into(&mut self, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        loop {
            self.set_mode(Mode::Code);
            // Probe descriptions need not lex as code (`tick-1sec`): a lexing
            // error here just means "not a declaration".
            let first = self.peek();
            self.flush_pragmas(items);
            let first = match first {
                Ok(t) => t,
                Err(_) => {
                    self.set_mode(Mode::ProbeDesc);
                    items.push(Item::Clause(self.clause()?));
                    continue;
                }
            };
            match first.kind {
                Tok::Eof => break,
                Tok::Kw(Kw::Translator) => items.push(Item::Translator(self.translator()?)),
                Tok::Kw(Kw::Provider) => items.push(Item::ProviderDecl(self.provider()?)),
                _ => {
                    if !self.is_pspec_run(&first) && self.starts_decl().unwrap_or(false) {
                        let d = self.decl()?;
                        items.push(Item::Decl(d));
                    } else {
                        self.set_mode(Mode::ProbeDesc);
                        items.push(Item::Clause(self.clause()?));
                    }
                }
            }
            self.flush_pragmas(items);
        }
        self.flush_pragmas(items);
        Ok(())
    }
}
