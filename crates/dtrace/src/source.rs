//! What the user gave to compile.

/// How a `-n`-style probe specifier was introduced: `-n` (name), `-P` (provider),
/// `-m` (module), `-f` (function), or `-i` (probe id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeSpecKind {
    Name,
    Provider,
    Module,
    Function,
    Id,
}

/// One program source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `-n 'desc [/pred/] [{...}]'` and friends.
    Spec { kind: ProbeSpecKind, text: String },
    /// `-s file`: the file's path (for messages) and its text.
    Script { path: String, text: String },
}
