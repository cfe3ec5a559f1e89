//! Tokens produced by the lexer.

use crate::ast::IntSuffix;
use crate::span::Span;

/// D keywords. Some are reserved and never valid (`break`, `for`, ...); the
/// parser reports them as syntax errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kw {
    Auto,
    Break,
    Case,
    Char,
    Const,
    Continue,
    Counter,
    Default,
    Do,
    Double,
    Else,
    Enum,
    Extern,
    Float,
    For,
    Goto,
    If,
    Import,
    Inline,
    Int,
    Long,
    Offsetof,
    Probe,
    Provider,
    Register,
    Restrict,
    Return,
    SelfKw,
    Short,
    Signed,
    Sizeof,
    Static,
    String,
    Stringof,
    Struct,
    Switch,
    This,
    Translator,
    Typedef,
    Union,
    Unsigned,
    Void,
    Volatile,
    While,
    Xlate,
}

impl Kw {
    pub fn from_ident(s: &str) -> Option<Kw> {
        Some(match s {
            "auto" => Kw::Auto,
            "break" => Kw::Break,
            "case" => Kw::Case,
            "char" => Kw::Char,
            "const" => Kw::Const,
            "continue" => Kw::Continue,
            "counter" => Kw::Counter,
            "default" => Kw::Default,
            "do" => Kw::Do,
            "double" => Kw::Double,
            "else" => Kw::Else,
            "enum" => Kw::Enum,
            "extern" => Kw::Extern,
            "float" => Kw::Float,
            "for" => Kw::For,
            "goto" => Kw::Goto,
            "if" => Kw::If,
            "import" => Kw::Import,
            "inline" => Kw::Inline,
            "int" => Kw::Int,
            "long" => Kw::Long,
            "offsetof" => Kw::Offsetof,
            "probe" => Kw::Probe,
            "provider" => Kw::Provider,
            "register" => Kw::Register,
            "restrict" => Kw::Restrict,
            "return" => Kw::Return,
            "self" => Kw::SelfKw,
            "short" => Kw::Short,
            "signed" => Kw::Signed,
            "sizeof" => Kw::Sizeof,
            "static" => Kw::Static,
            "string" => Kw::String,
            "stringof" => Kw::Stringof,
            "struct" => Kw::Struct,
            "switch" => Kw::Switch,
            "this" => Kw::This,
            "translator" => Kw::Translator,
            "typedef" => Kw::Typedef,
            "union" => Kw::Union,
            "unsigned" => Kw::Unsigned,
            "void" => Kw::Void,
            "volatile" => Kw::Volatile,
            "while" => Kw::While,
            "xlate" => Kw::Xlate,
            _ => return None,
        })
    }

    /// Keywords that name (part of) a basic type.
    pub fn is_type_keyword(self) -> bool {
        matches!(
            self,
            Kw::Char
                | Kw::Short
                | Kw::Int
                | Kw::Long
                | Kw::Signed
                | Kw::Unsigned
                | Kw::Void
                | Kw::Float
                | Kw::Double
                | Kw::String
                | Kw::Struct
                | Kw::Union
                | Kw::Enum
        )
    }

    pub fn is_qualifier(self) -> bool {
        matches!(self, Kw::Const | Kw::Volatile | Kw::Restrict)
    }

    /// Storage classes and D scope keywords that may start a declaration.
    pub fn is_storage(self) -> bool {
        matches!(
            self,
            Kw::SelfKw
                | Kw::This
                | Kw::Static
                | Kw::Extern
                | Kw::Typedef
                | Kw::Inline
                | Kw::Register
                | Kw::Auto
        )
    }
}

/// Punctuators and operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P {
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Colon,
    Question,
    Dot,
    Ellipsis,
    Arrow,
    Inc,
    Dec,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Bang,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Shl,
    Shr,
    AndAnd,
    OrOr,
    XorXor,
    Assign,
    AddAssign,
    SubAssign,
    MulAssign,
    DivAssign,
    ModAssign,
    AndAssign,
    OrAssign,
    XorAssign,
    ShlAssign,
    ShrAssign,
}

impl P {
    pub fn text(self) -> &'static str {
        match self {
            P::LParen => "(",
            P::RParen => ")",
            P::LBracket => "[",
            P::RBracket => "]",
            P::LBrace => "{",
            P::RBrace => "}",
            P::Comma => ",",
            P::Semi => ";",
            P::Colon => ":",
            P::Question => "?",
            P::Dot => ".",
            P::Ellipsis => "...",
            P::Arrow => "->",
            P::Inc => "++",
            P::Dec => "--",
            P::Plus => "+",
            P::Minus => "-",
            P::Star => "*",
            P::Slash => "/",
            P::Percent => "%",
            P::Amp => "&",
            P::Pipe => "|",
            P::Caret => "^",
            P::Tilde => "~",
            P::Bang => "!",
            P::Lt => "<",
            P::Gt => ">",
            P::Le => "<=",
            P::Ge => ">=",
            P::EqEq => "==",
            P::Ne => "!=",
            P::Shl => "<<",
            P::Shr => ">>",
            P::AndAnd => "&&",
            P::OrOr => "||",
            P::XorXor => "^^",
            P::Assign => "=",
            P::AddAssign => "+=",
            P::SubAssign => "-=",
            P::MulAssign => "*=",
            P::DivAssign => "/=",
            P::ModAssign => "%=",
            P::AndAssign => "&=",
            P::OrAssign => "|=",
            P::XorAssign => "^=",
            P::ShlAssign => "<<=",
            P::ShrAssign => ">>=",
        }
    }

    /// Longest-first table used by the lexer.
    pub const ALL_BY_LEN: &'static [P] = &[
        P::Ellipsis,
        P::ShlAssign,
        P::ShrAssign,
        P::Arrow,
        P::Inc,
        P::Dec,
        P::Le,
        P::Ge,
        P::EqEq,
        P::Ne,
        P::Shl,
        P::Shr,
        P::AndAnd,
        P::OrOr,
        P::XorXor,
        P::AddAssign,
        P::SubAssign,
        P::MulAssign,
        P::DivAssign,
        P::ModAssign,
        P::AndAssign,
        P::OrAssign,
        P::XorAssign,
        P::LParen,
        P::RParen,
        P::LBracket,
        P::RBracket,
        P::LBrace,
        P::RBrace,
        P::Comma,
        P::Semi,
        P::Colon,
        P::Question,
        P::Dot,
        P::Plus,
        P::Minus,
        P::Star,
        P::Slash,
        P::Percent,
        P::Amp,
        P::Pipe,
        P::Caret,
        P::Tilde,
        P::Bang,
        P::Lt,
        P::Gt,
        P::Assign,
    ];
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Int {
        value: u64,
        suffix: IntSuffix,
        radix: u8,
    },
    Char(i64),
    Str(Vec<u8>),
    /// An identifier, possibly backquote-scoped (``vmlinux`jiffies``).
    Ident(String),
    Kw(Kw),
    /// `@name`, or `@` alone (name "").
    Agg(String),
    P(P),
    /// A `/` followed (after blanks and comments) by `{`, `;`, `}` or the end of
    /// input: it closes a predicate. Elsewhere the parser treats it as division.
    SlashEnd,
    /// One probe description (macro variables already substituted).
    ProbeDesc(String),
    /// `#pragma D word...`.
    Pragma(Vec<String>),
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: Tok,
    pub span: Span,
    /// Byte offset where lexing of this token began (the `$` of a macro expansion).
    pub(crate) raw: u32,
    /// Index of this token inside a multi-token macro expansion (0 otherwise).
    pub(crate) part: u16,
}

/// What the lexer should look for at the current position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// D code: expressions, statements, declarations.
    Code,
    /// Start of a top-level clause: probe descriptions.
    ProbeDesc,
}
