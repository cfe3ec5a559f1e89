//! The D abstract syntax tree.
//!
//! The parser produces it; `dtrace-sema` types it. Nodes carry spans, never types:
//! types live in sema's typed program. Names follow the Dynamic Tracing Guide.

use crate::span::Span;

/// A whole D program: every `-n`/`-s` source of one compilation, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Clause(Clause),
    Pragma(Pragma),
    /// A top-level declaration: variables, types, `inline`.
    Decl(Decl),
    Translator(Translator),
    ProviderDecl(ProviderDecl),
}

/// `probe-descriptions [/predicate/] { statements }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub probes: Vec<ProbeSpec>,
    pub predicate: Option<Expr>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// One probe description as written (`provider:module:function:name`, any field
/// may be empty or a glob; fewer fields fill from the right: `BEGIN` is `:::BEGIN`).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSpec {
    pub text: String,
    pub span: Span,
}

/// `#pragma D ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pragma {
    /// The words after `#pragma D`, e.g. `["option", "quiet"]`.
    pub words: Vec<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Expr(Expr),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
        span: Span,
    },
    Block(Vec<Stmt>, Span),
    /// A loop (an extension to D): `while (cond) body` (`test_first`),
    /// `do body while (cond);`, or `for (init; cond; step) body` (`init` and
    /// `step` present; a missing `cond` is always true).
    Loop {
        init: Option<Box<Expr>>,
        cond: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        body: Vec<Stmt>,
        test_first: bool,
        span: Span,
        /// The source line the loop starts on.
        line: u32,
    },
    /// `break;` inside a loop.
    Break(Span),
    /// `continue;` inside a loop.
    Continue(Span),
    /// A declaration inside a clause (e.g. `this->int x;` is not D, but
    /// `this int x;` at top level is; local declarations are kept for errors).
    Decl(Decl),
    Empty(Span),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntSuffix {
    None,
    U,
    L,
    UL,
    LL,
    ULL,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// Integer literal; `radix` 8, 10 or 16 matters for C's literal typing rules.
    Int {
        value: u64,
        suffix: IntSuffix,
        radix: u8,
    },
    /// Character literal `'a'`, `'\n'` (value of type char; multi-char packs like C).
    Char(i64),
    /// String literal, escapes already decoded.
    Str(Vec<u8>),
    /// A plain identifier: a global variable, built-in (`pid`, `arg0`), inline, enum
    /// constant or kernel symbol (possibly scoped with backquotes: ``vmlinux`jiffies``).
    Ident(String),
    /// `self->name`.
    SelfVar(String),
    /// `this->name`.
    ThisVar(String),
    /// `@name` (`@` alone is the anonymous aggregation, name "").
    Agg(String),
    /// `f(args)`: a subroutine, action or aggregating function.
    Call {
        func: String,
        args: Vec<Expr>,
    },
    /// `base[i, j, ...]`: associative array, aggregation key or C array index.
    Index {
        base: Box<Expr>,
        index: Vec<Expr>,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        /// Where dtrace(1) places this operator's errors: the token after the
        /// right operand (libdtrace gives a node the line its lexer is on when
        /// the parser builds it, after reading that token; a predicate's closing
        /// `/` is read with the white space after it).
        at: Span,
    },
    /// `lhs = rhs` (`op == None`) or `lhs op= rhs`.
    Assign {
        op: Option<BinOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    /// `e.name` (`arrow == false`) or `e->name`.
    Member {
        base: Box<Expr>,
        name: String,
        arrow: bool,
    },
    Cast {
        ty: TypeName,
        expr: Box<Expr>,
    },
    SizeofType(TypeName),
    SizeofExpr(Box<Expr>),
    Offsetof {
        ty: TypeName,
        member: String,
    },
    Stringof(Box<Expr>),
    Xlate {
        ty: TypeName,
        expr: Box<Expr>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogXor,
    LogOr,
    /// The comma operator.
    Comma,
}

impl BinOp {
    /// The operator as written in D, for messages (`operator + is not valid ...`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
            BinOp::LogAnd => "&&",
            BinOp::LogXor => "^^",
            BinOp::LogOr => "||",
            BinOp::Comma => ",",
        }
    }
}

/// A type name as written: specifiers plus an abstract declarator
/// (`unsigned long`, `struct foo *`, `int [4]`, ``vmlinux`task_struct``).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeName {
    pub spec: TypeSpec,
    pub decl: Declarator,
    pub span: Span,
}

/// Declaration specifiers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TypeSpec {
    /// Storage class / D scope keyword: `self`, `this`, `static`, `extern`, `typedef`, `inline`.
    pub storage: Option<String>,
    /// `const`, `volatile`, `restrict`.
    pub qualifiers: Vec<String>,
    pub base: BaseType,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum BaseType {
    /// Keyword list as written (`unsigned`, `long`, `long`, `int`; `char`; `void`; `string`).
    Keywords(Vec<String>),
    /// A typedef name, possibly module-scoped (``vmlinux`pid_t``).
    Named(String),
    /// `struct tag`, with members when this is a definition.
    Struct {
        tag: Option<String>,
        members: Option<Vec<MemberDecl>>,
    },
    Union {
        tag: Option<String>,
        members: Option<Vec<MemberDecl>>,
    },
    Enum {
        tag: Option<String>,
        values: Option<Vec<(String, Option<Expr>, Span)>>,
    },
    #[default]
    /// Nothing written (only valid where D allows an implicit `int`).
    Implicit,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemberDecl {
    pub spec: TypeSpec,
    pub decl: Declarator,
    pub bitfield: Option<Expr>,
    pub span: Span,
}

/// A (possibly abstract) C declarator. The parser builds it inside-out, so
/// `int *a[4]` is `Array(Pointer(Ident("a")))`... read as "a is array of pointer".
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Declarator {
    #[default]
    Abstract,
    Ident(String, Span),
    Pointer {
        inner: Box<Declarator>,
        qualifiers: Vec<String>,
    },
    /// `[N]`, `[]`, or D's associative array form `[type, type]`.
    Array {
        inner: Box<Declarator>,
        dim: ArrayDim,
    },
    Function {
        inner: Box<Declarator>,
        params: Vec<TypeName>,
        varargs: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ArrayDim {
    None,
    Size(Box<Expr>),
    /// Associative array key types.
    Assoc(Vec<TypeName>),
}

/// A declaration: `int x;`, `self string s;`, `typedef ...;`, `struct s {...};`,
/// `inline int x = 3;`, `extern ...;`.
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    pub spec: TypeSpec,
    /// Each declarator with its optional initializer (only `inline` has one).
    pub declarators: Vec<(Declarator, Option<Expr>)>,
    pub span: Span,
    /// Made in a file the script `#include`d (`-C`): libdtrace puts such
    /// declarations in its "C" scope, apart from the program's own "D" scope.
    pub in_include: bool,
}

/// `translator out < in name > { member = expr; ... };`
#[derive(Debug, Clone, PartialEq)]
pub struct Translator {
    pub output: TypeName,
    pub input: TypeName,
    pub input_name: String,
    pub members: Vec<(String, Expr, Span)>,
    pub span: Span,
}

/// `provider name { probe p(args); ... };`
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderDecl {
    pub name: String,
    pub probes: Vec<(String, Vec<TypeName>, Span)>,
    pub span: Span,
}
