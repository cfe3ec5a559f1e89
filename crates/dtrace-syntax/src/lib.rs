//! The D front end: source map and spans, diagnostics, lexer, parser and AST.
//!
//! Architecture invariant: parsing never panics; on bad input it returns a
//! [`Diagnostic`] carrying a span and a `D_*` tag.
//!
//! Code map: `token.rs` (token kinds) -> `lexer.rs` (modal lexer; `literal.rs`
//! decodes constants, `macros.rs` substitutes `$1`/`$target`) -> `parser/`
//! (recursive descent) -> `ast.rs`. `dump.rs` prints an AST as S-expressions.

pub mod ast;
pub mod diag;
pub mod dump;
mod lexer;
mod literal;
mod macros;
mod parser;
pub mod span;
pub mod token;

pub use diag::{render_dtrace, render_rich, Diagnostic, LinePlace, RenderOptions, Tag};
pub use dump::dump;
pub use parser::{parse, parse_prefix, parse_with_info, ParseInfo, ParseOptions, MAX_DEPTH};
pub use span::{scan_line_markers, LineMarker, SourceFile, SourceId, SourceKind, SourceMap, Span};
