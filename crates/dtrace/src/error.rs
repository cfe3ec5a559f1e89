//! The facade's errors: opening, compiling, executing.

/// Errors opening the tracing subsystem.
#[derive(Debug)]
pub enum OpenError {
    /// One line a user understands, e.g. "DTrace requires root privileges".
    Unavailable(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Unavailable(s) => f.write_str(s),
        }
    }
}

/// A compile error: its `D_*` tag, message and place in the source, and the
/// same rendered in dtrace(1)'s form and the rich form.
#[derive(Debug, Clone, Default)]
pub struct CompileError {
    /// `dtrace: failed to compile script x.d: line 3: ...` (no trailing newline).
    pub message: String,
    /// file:line:col with the source line and a caret; empty for errors that
    /// have no place in the source.
    pub rich: String,
    /// libdtrace's tag (`D_SYNTAX`, ...); None for errors outside the compiler
    /// proper (a file that cannot be read, ...).
    pub tag: Option<&'static str>,
    /// The diagnostic's own message, without the `dtrace: ...` prefix.
    pub text: String,
    /// Where in the source (None when the error has no place there).
    pub location: Option<Box<Location>>,
}

/// A place in a D source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file (or `-n`/`-s` source) name as dtrace(1) shows it.
    pub file: String,
    /// 1-based line (after `#line` markers).
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// Byte range in the source text.
    pub span: std::ops::Range<u32>,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CompileError {}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExecError {}

impl std::error::Error for OpenError {}

/// A failure after compilation: loading, attaching, or the kernel refusing a program.
#[derive(Debug, Clone)]
pub struct ExecError {
    /// `dtrace: ...` one line, no trailing newline (after a notice of its
    /// own lines when there is one, e.g. an incomplete verifier log).
    pub message: String,
    /// Extra detail shown with `-x verbose` (e.g. the verifier log).
    pub detail: Option<String>,
}
