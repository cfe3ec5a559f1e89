//! The D front end: source map and spans, diagnostics, lexer, parser and AST.
//!
//! Architecture invariant: parsing never panics; on bad input it returns a
//! [`Diagnostic`] carrying a span and a `D_*` tag.

pub mod ast;
pub mod diag;
pub mod span;

pub use diag::{render_dtrace, render_rich, Diagnostic, RenderOptions, Tag};
pub use span::{SourceId, SourceKind, SourceMap, Span};
