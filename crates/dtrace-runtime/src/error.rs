//! Runtime errors, worded for the user.

use std::fmt;

#[derive(Debug, Clone)]
pub enum RuntimeError {
    /// A map could not be created or initialized.
    Map { map: String, message: String },
    /// The verifier (or the kernel) refused a program. Shown as DTrace shows
    /// it: `BPF program load for 'prv:mod:fun:name' failed: <errno text>`.
    Load {
        program: String,
        /// The probe the program was loaded for: the first one the failing
        /// clause (or else the program) serves here.
        probe_id: Option<u32>,
        /// What the kernel said (None: the load was not attempted).
        errno: Option<dtrace_sys::Errno>,
        /// The clause the failing instruction belongs to (0-based).
        clause: Option<u32>,
        /// The verifier's reason, from the end of its log.
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

impl RuntimeError {
    /// Where a verifier rejection points in the program, for `-x verbose`:
    /// the clause (1-based) and the verifier's reason.
    pub fn rejection_hint(&self) -> Option<String> {
        match self {
            RuntimeError::Load {
                program,
                clause: Some(c),
                message,
                ..
            } => Some(format!(
                "the BPF verifier rejected clause {} (program {program}): {message}",
                c + 1
            )),
            RuntimeError::Load {
                program, message, ..
            } => Some(format!(
                "the BPF verifier rejected program {program}: {message}"
            )),
            _ => None,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::Map { map, message } => {
                write!(f, "failed to create map {map}: {message}")
            }
            RuntimeError::Load {
                program,
                errno: Some(errno),
                ..
            } => write!(f, "BPF program load for '{program}' failed: {errno}"),
            RuntimeError::Load {
                program, message, ..
            } => write!(f, "BPF program load for '{program}' failed: {message}"),
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
