//! `plockstat`: user-level lock statistics, as Solaris's plockstat(1M)
//! reports them: contention (`-C`, the default) and hold (`-H`) events of a
//! process's pthread mutexes and read-write locks, for a command it runs or
//! a process it grabs (`-p pid`).
//!
//! It is a companion command rather than a `dtrace` subcommand: plockstat's
//! own options (`-s depth`, `-e secs`, `-n count`, `-p` without an argument,
//! `-V` to print the program) clash with dtrace(1)'s letters, and scripts
//! written for Solaris call `plockstat` by name. Like Solaris's, it is a
//! small consumer of the library: it generates a D program (`program.rs`),
//! compiles and runs it through `dtrace::Dtrace`, and prints the `printa()`
//! rows its END clauses produce as plockstat's report (`report.rs`).
//!
//! Exit status: 0 on success, 1 on an error, 2 on a usage error.

mod args;
mod program;
mod report;

use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::time::Duration;

use dtrace::targets::Targets;
use dtrace::{Dtrace, WorkStatus};
use dtrace_sys::proc::{Signal, SignalFd};

use args::{Args, EXIT_USAGE};
use report::Report;

/// The name messages start with.
const NAME: &str = "plockstat";

/// A line for stderr and the exit status to leave with.
struct Fail(String, i32);

fn fail(message: impl Into<String>) -> Fail {
    Fail(message.into(), 1)
}

/// The library's messages start `dtrace: `; ours start with our name.
fn ours(message: &str) -> String {
    let rest = message.strip_prefix("dtrace: ").unwrap_or(message);
    format!("{NAME}: {rest}")
}

fn main() {
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = match args::parse(&argv) {
        Err(e) => {
            let mut err = io::stderr().lock();
            if let Some(m) = e.message {
                let _ = writeln!(err, "{NAME}: {m}");
            }
            let _ = err.write_all(args::usage(NAME).as_bytes());
            EXIT_USAGE
        }
        Ok(a) => match run(&a) {
            Ok(code) => code,
            Err(Fail(message, code)) => {
                let _ = writeln!(io::stderr().lock(), "{message}");
                code
            }
        },
    };
    std::process::exit(code);
}

fn run(a: &Args) -> Result<i32, Fail> {
    // Blocked before the library starts a thread, so every thread inherits
    // the mask and the signals arrive through this descriptor.
    let signals = SignalFd::new()
        .map_err(|e| fail(format!("{NAME}: failed to set up signal handling: {e}")))?;
    let mut dtrace = Dtrace::open(true).map_err(|e| {
        fail(format!(
            "{NAME}: failed to initialize dtrace: {}",
            ours(&e.to_string())
        ))
    })?;
    // The hottest locks first; a lock function this libc lacks (an older
    // glibc's `clocklock`) matches nothing without failing the program.
    let mut options: Vec<(String, Option<String>)> =
        vec![("aggsortrev".into(), None), ("zdefs".into(), None)];
    if let Some(depth) = a.plan.stack_depth {
        options.push(("ustackframes".into(), Some(depth.to_string())));
    }
    options.extend(a.options.iter().cloned());
    for (name, value) in &options {
        dtrace
            .set_opt(name, value.as_deref())
            .map_err(|e| fail(format!("{NAME}: failed to set -x {name}: {e}")))?;
    }

    let mut targets = Targets::new();
    let made = if a.grab {
        targets.grab(&a.operands[0])
    } else {
        targets.create_argv(&a.operands)
    };
    made.map_err(|m| fail(ours(&m)))?;
    let pid = targets.target_pid().unwrap_or(0);

    let text = a.plan.program();
    if a.show_program {
        let mut err = io::stderr().lock();
        let _ = write!(
            err,
            "{NAME}: vvvv D program vvvv\n{text}{NAME}: ^^^^ D program ^^^^\n"
        );
    }
    let source = dtrace::Source::Script {
        path: NAME.into(),
        text,
    };
    dtrace
        .compile(
            &source,
            &[NAME.to_string()],
            &dtrace::targets::macro_variables(Some(pid)),
        )
        .map_err(|e| fail(ours(&e.message)))?;
    let mut session = dtrace.exec().map_err(|e| fail(ours(&e.message)))?;

    let depth = a.plan.stack_depth;
    let mut report = Report::new(
        io::stdout(),
        u32::try_from(pid).unwrap_or(0),
        depth,
        a.count,
    );
    let fds = std::iter::once(signals.as_raw_fd()).chain(targets.wake_fds());
    for fd in fds {
        session
            .add_wake_fd(fd)
            .map_err(|e| fail(ours(&e.message)))?;
    }
    let mut done = matches!(
        session
            .go(&mut report)
            .map_err(|e| fail(ours(&e.message)))?,
        WorkStatus::Done
    );
    if !done {
        for p in targets.pids() {
            session.watch_process(p);
        }
        targets.release_all().map_err(|m| fail(ours(&m)))?;
        if a.verbose {
            let _ = writeln!(report.out_mut(), "{NAME}: tracing enabled for pid {pid}");
        }
    }
    let mut failure = None;
    while !done {
        let _ = report.out_mut().flush();
        match session.work(Duration::from_millis(200), &mut report) {
            Ok(WorkStatus::Done) => done = true,
            Ok(WorkStatus::Okay) => {}
            Err(e) => {
                failure = Some(fail(ours(&e.message)));
                done = true;
            }
        }
        if let Ok(got) = signals.read() {
            if got.iter().any(|s| matches!(s, Signal::Int | Signal::Term)) {
                done = true;
            }
        }
        for line in targets.poll() {
            let _ = writeln!(io::stderr().lock(), "{NAME}: {line}");
        }
        if targets.all_gone() {
            done = true;
        }
    }
    // Detach, fire END (which prints the report), and clean up.
    let stopped = session.stop(&mut report);
    let finished = session.finish(&mut report);
    let _ = report.out_mut().flush();
    targets.kill_all();
    if let Some(f) = failure {
        return Err(f);
    }
    stopped.map_err(|e| fail(ours(&e.message)))?;
    finished.map_err(|e| fail(ours(&e.message)))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_our_name() {
        assert_eq!(
            ours("dtrace: failed to grab pid 9: No such process"),
            "plockstat: failed to grab pid 9: No such process"
        );
        assert_eq!(ours("odd"), "plockstat: odd");
    }
}
