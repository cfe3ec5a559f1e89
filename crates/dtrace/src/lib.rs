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

use std::collections::HashMap;
use std::io::Write;
use std::os::fd::RawFd;
use std::time::Duration;

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

/// A DTrace handle (libdtrace's `dtrace_hdl_t`): options plus the programs compiled so far.
pub struct Dtrace {
    options: Options,
}

impl Dtrace {
    /// Open the tracing subsystem: probe kernel features once.
    /// `need_kernel == false` (for `-l`, `-e`) does not require BPF privileges.
    pub fn open(need_kernel: bool) -> Result<Dtrace, OpenError> {
        let _ = need_kernel;
        Ok(Dtrace {
            options: Options::default(),
        })
    }

    /// `-x name[=value]` and `#pragma D option`.
    pub fn set_opt(&mut self, name: &str, value: Option<&str>) -> Result<(), OptError> {
        let _ = (name, value);
        Err(OptError("not integrated yet".into()))
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Compile one source; programs accumulate in the handle.
    /// `macro_args` are `$0..$n`; `macro_vars` hold `target`, `pid`, ... as decimal text.
    pub fn compile(
        &mut self,
        source: &Source,
        macro_args: &[String],
        macro_vars: &HashMap<String, String>,
    ) -> Result<ProgramInfo, CompileError> {
        let _ = (source, macro_args, macro_vars);
        Err(CompileError {
            message: "dtrace: not integrated yet".into(),
            rich: String::new(),
        })
    }

    /// `dtrace -l`: the probes matching `source`'s descriptions (all probes if `None`).
    pub fn list(&mut self, source: Option<&Source>) -> Result<Vec<ProbeListing>, CompileError> {
        let _ = source;
        Ok(Vec::new())
    }

    /// `-S`: disassembly of every compiled program.
    pub fn disassemble(&self) -> String {
        String::new()
    }

    /// Load maps and programs into the kernel; nothing fires until `Session::go`.
    pub fn exec(self) -> Result<Session, ExecError> {
        Err(ExecError {
            message: "dtrace: not integrated yet".into(),
            detail: None,
        })
    }
}

/// A running tracing session. Dropping it detaches every probe.
pub struct Session {
    _private: (),
}

impl Session {
    /// Also wake `work` when `fd` becomes readable (e.g. the CLI's signalfd).
    pub fn add_wake_fd(&mut self, fd: RawFd) -> Result<(), ExecError> {
        let _ = fd;
        Ok(())
    }

    /// Fire BEGIN (in this process's context), consume its output, then attach all
    /// other probes. Returns `Done` if BEGIN called exit().
    pub fn go(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<WorkStatus, ExecError> {
        let _ = (out, err);
        Ok(WorkStatus::Done)
    }

    /// Wait up to `timeout` (the CLI passes 1/switchrate) for records or a wake fd,
    /// then consume what is buffered and report drops.
    pub fn work(
        &mut self,
        timeout: Duration,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<WorkStatus, ExecError> {
        let _ = (timeout, out, err);
        Ok(WorkStatus::Done)
    }

    /// Stop tracing: detach every probe, fire END, drain the buffers.
    pub fn stop(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), ExecError> {
        let _ = (out, err);
        Ok(())
    }

    /// Print the aggregations not yet printed (dtrace(1)'s end-of-run output) and
    /// return the status passed to exit() (0 if none).
    pub fn finish(self, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, ExecError> {
        let _ = (out, err);
        Ok(0)
    }
}
