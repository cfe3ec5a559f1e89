//! The library facade, in libdtrace's shape: open a handle, set options, compile
//! programs, list probes, execute, and consume. `dtrace-cli` is one user of it.
//!
//! Flow (as dtrace(1)): `Dtrace::open` -> `set_opt`... -> `compile` (per -n/-s) ->
//! `exec` (load and attach nothing yet) -> `Session::go` (BEGIN, then attach) ->
//! `Session::work` until done -> `Session::stop` (detach, END) -> `Session::finish`
//! (drain, print aggregations).

pub mod options;
pub mod source;

pub use options::{OptError, Options};
pub use source::{ProbeSpecKind, Source};

use std::io::Write;

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

/// A compile error, already rendered in dtrace(1)'s form (and the rich form).
#[derive(Debug, Clone)]
pub struct CompileError {
    /// `dtrace: failed to compile script x.d: line 3: ...` (no trailing newline).
    pub message: String,
    /// file:line:col with the source line and a caret.
    pub rich: String,
}

/// A failure after compilation: loading, attaching, or the kernel refusing a program.
#[derive(Debug, Clone)]
pub struct ExecError {
    /// `dtrace: ...` one line, no trailing newline.
    pub message: String,
    /// Extra detail shown with `-x verbose` (e.g. the verifier log).
    pub detail: Option<String>,
}

/// The result of one `Session::work` step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkStatus {
    /// Keep going.
    Okay,
    /// `exit()` was called (with its status) or tracing otherwise finished.
    Done,
}

/// What one compiled program (one -n or -s) matched.
#[derive(Debug, Clone)]
pub struct ProgramInfo {
    /// Number of probes matched by all its clauses (dtrace(1)'s "matched N probes").
    pub matched: usize,
}

/// One row of `dtrace -l`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeListing {
    pub id: u32,
    pub provider: String,
    pub module: String,
    pub function: String,
    pub name: String,
}
