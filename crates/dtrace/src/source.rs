//! What the user gave to compile.

/// How a `-n`-style probe specifier was introduced: `-n` (name), `-P` (provider),
/// `-m` (module), `-f` (function), or `-i` (probe id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeSpecKind {
    /// `-n`: a probe name (the whole description).
    Name,
    /// `-P`: a provider.
    Provider,
    /// `-m`: a module.
    Module,
    /// `-f`: a function.
    Function,
    /// `-i`: a probe ID.
    Id,
}

/// One program source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `-n 'desc [/pred/] [{...}]'` and friends.
    Spec {
        /// Which option gave it.
        kind: ProbeSpecKind,
        /// The specifier with its predicate and actions.
        text: String,
    },
    /// `-s file`: the file's path (for messages) and its text.
    Script {
        /// The file's path, for messages.
        path: String,
        /// The program.
        text: String,
    },
}
