//! Runtime errors, worded for the user.

use std::fmt;

#[derive(Debug, Clone)]
pub enum RuntimeError {
    /// A map could not be created or initialized.
    Map { map: String, message: String },
    /// The verifier (or the kernel) refused a program.
    Load {
        program: String,
        /// The clause the failing instruction belongs to, as `(index, line-less text)`.
        clause: Option<u32>,
        message: String,
        log: Option<String>,
        /// The verifier's log needed more than this many bytes
        /// (`bpflogsize`): `log` is only what the kernel kept.
        log_incomplete: Option<usize>,
    },
    /// The verifier could not bound a loop (an extension, docs/LOOPS.md).
    Loop { line: u32, log: Option<String> },
    /// A probe could not be attached.
    Attach(String),
    /// Reading the ring buffer, a counter or an aggregation failed.
    Io(String),
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::Map { map, message } => {
                write!(f, "failed to create map {map}: {message}")
            }
            RuntimeError::Load {
                program,
                clause: Some(c),
                message,
                ..
            } => write!(
                f,
                "the BPF verifier rejected clause {} (program {program}): {message}",
                c + 1
            ),
            RuntimeError::Load {
                program, message, ..
            } => write!(f, "the BPF verifier rejected program {program}: {message}"),
            RuntimeError::Loop { line, .. } => write!(
                f,
                "failed to enable tracing: the loop at line {line} could not be proven to \
                 terminate by the BPF verifier (bound it with a counter, e.g. \
                 for (i = 0; i < 100; i++))"
            ),
            RuntimeError::Attach(m) | RuntimeError::Io(m) => f.write_str(m),
        }
    }
}
