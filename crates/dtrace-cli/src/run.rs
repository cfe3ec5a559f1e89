//! dtrace(1)'s flow: open, set options, create or grab processes, compile every
//! source in order, then list (`-l`), stop (`-e`), or enable and trace until
//! `exit()`, an interrupt, or the end of the traced processes.
//!
//! Messages and exit statuses follow dtrace(1): `0` success (or the status given
//! to `exit()`), `1` a failure, `2` bad options. Notices (`matched N probes`,
//! `pid N has exited`, ...) go to stderr and are suppressed by quiet mode, set by
//! `-q`, `-x quiet` or `#pragma D option quiet`.

use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};
use std::os::fd::AsRawFd;
use std::time::Duration;

use dtrace::{CompileError, Dtrace, ExecError, Session, Source, WorkStatus};
use dtrace_sys::proc::{self, Signal, SignalFd};

use crate::args::{self, Args, DiagStyle, Mode, SourceArg, EXIT_USAGE};
use crate::output::Output;
use crate::sink::Sink;
use dtrace::targets::Targets;

/// dtrace -V: the D programming interface this compiler offers, in the
/// documented `<interface> D <version>` form ("dtrace: Sun D 1.0"). The name
/// is the interface's, not the implementation's (FreeBSD's and macOS's
/// dtrace print "Sun D"): this is the D of DTrace for Linux 2.0, whose -V
/// says "Oracle D 2.0". `-vV` names this implementation on its next line.
pub const D_VERSION: &str = "Oracle D 2.0";

/// A reason to stop: what to print on stderr (a whole line, no newline) and the
/// exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pub code: i32,
    pub message: Option<String>,
}

impl Fail {
    pub fn error(message: impl Into<String>) -> Fail {
        Fail {
            code: 1,
            message: Some(message.into()),
        }
    }

    pub fn usage(message: impl Into<String>) -> Fail {
        Fail {
            code: EXIT_USAGE,
            message: Some(message.into()),
        }
    }

    /// Exit without a further message (it was printed already).
    fn silent(code: i32) -> Fail {
        Fail {
            code,
            message: None,
        }
    }
}

/// Write to stderr, ignoring failure (there is nowhere left to report it).
pub fn say(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.write_all(b"\n");
}

/// The whole command: parse `argv`, run, return the exit status.
pub fn main(argv: &[String]) -> i32 {
    let args = match args::parse(argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = io::stderr().lock().write_all(e.render().as_bytes());
            return EXIT_USAGE;
        }
    };
    match run(&args) {
        Ok(code) => code,
        Err(fail) => {
            if let Some(m) = &fail.message {
                say(m);
            }
            fail.code
        }
    }
}

fn run(args: &Args) -> Result<i32, Fail> {
    match args.mode {
        Mode::Version => return print_version(args.verbose > 0),
        Mode::Header => return crate::header::run(args),
        Mode::Anon => {
            return Err(Fail::error(
                "dtrace: -A is not supported: Linux has no anonymous tracing",
            ))
        }
        Mode::Link => return crate::link::run(args, &args.macro_args),
        Mode::Exec | Mode::List => {}
    }
    if args.claim_anon {
        return Err(Fail::error(
            "dtrace: -a is not supported: Linux has no anonymous tracing",
        ));
    }

    let tracing = args.mode == Mode::Exec && !args.compile_only;
    // Block the signals before the library starts any thread, so that every
    // thread inherits the mask and they all arrive through this descriptor.
    let signals = if tracing {
        Some(SignalFd::new().map_err(|e| {
            Fail::error(format!(
                "dtrace: failed to set up signal handling: {}",
                proc::strerror(&e)
            ))
        })?)
    } else {
        None
    };

    let mut dtrace = Dtrace::open(tracing).map_err(|e| Fail::error(e.to_string()))?;
    if let Some(model) = args.data_model {
        dtrace.set_data_model(model);
    }
    apply_options(&mut dtrace, args)?;

    let mut targets = Targets::new();
    if matches!(args.mode, Mode::Exec | Mode::List) {
        for command in &args.commands {
            targets.create(command).map_err(Fail::error)?;
        }
        for pid in &args.pids {
            targets.grab(pid).map_err(Fail::error)?;
        }
    }

    let rich = match args.diag {
        DiagStyle::Rich => true,
        DiagStyle::Plain => false,
        DiagStyle::Auto => io::stderr().is_terminal(),
    };
    let sources = load_sources(args)?;

    let vars = dtrace::targets::macro_variables(targets.target_pid());
    if args.mode == Mode::List {
        return list(&mut dtrace, args, &sources, rich, &vars);
    }

    dtrace.report_stability(args.verbose > 0);
    let mut programs = Vec::new();
    for loaded in &sources {
        let info = dtrace.compile(&loaded.source, &loaded.macro_args, &vars);
        for n in dtrace.take_notices() {
            say(&format!("dtrace: {n}"));
        }
        let info = info.map_err(|e| compile_failure(&e, rich))?;
        programs.push(Program {
            description: loaded.description.clone(),
            matched: info.matched,
            stability: info.stability,
        });
        if let Some(s) = &signals {
            check_interrupted(s)?;
        }
    }

    // -S, or -x verbose (libdtrace's DTRACE_C_DIFV, which -S sets): the
    // compiled programs' disassembly.
    if args.disassemble || dtrace.options().verbose {
        let text = dtrace.disassemble();
        let mut err = io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        if !text.is_empty() && !text.ends_with('\n') {
            let _ = err.write_all(b"\n");
        }
    }

    let (Some(signals), true) = (signals, tracing) else {
        // -e: compiled, nothing enabled; -v reports every description.
        if args.mode == Mode::Exec && args.verbose > 0 {
            let mut out = Output::open(args.output.as_deref()).map_err(Fail::error)?;
            for p in &programs {
                let _ = out.write_all(p.report(true).as_bytes());
            }
            out.check().map_err(Fail::error)?;
        }
        return Ok(0);
    };
    trace(dtrace, args, &programs, targets, &signals)
}

fn print_version(verbose: bool) -> Result<i32, Fail> {
    let mut text = format!("dtrace: {D_VERSION}\n");
    if verbose {
        text.push_str(&format!(
            "This is DTrace (Rust) {}\n",
            env!("CARGO_PKG_VERSION")
        ));
    }
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(0),
        Err(_) => Err(Fail::silent(1)),
    }
}

/// `DTRACE_OPT_NAME=value` from the environment, then the command line's
/// options in order.
fn apply_options(dtrace: &mut Dtrace, args: &Args) -> Result<(), Fail> {
    dtrace.set_opts_from_env(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
    );
    dtrace.set_testing(std::env::var_os("_DTRACE_TESTING").is_some());
    for s in &args.settings {
        dtrace
            .set_opt(&s.name, s.value.as_deref())
            .map_err(|e| Fail::error(format!("dtrace: failed to set {}: {}", s.origin, e.0)))?;
    }
    // -C -D -U -I -H, under libdtrace's option names.
    let pp = &args.preprocessor;
    let mut cpp: Vec<(&str, Option<&str>)> = Vec::new();
    if pp.enabled {
        cpp.push(("cpp", None));
    }
    cpp.extend(pp.defines.iter().map(|d| ("define", Some(d.as_str()))));
    cpp.extend(pp.undefines.iter().map(|u| ("undef", Some(u.as_str()))));
    cpp.extend(pp.include_dirs.iter().map(|i| ("incdir", Some(i.as_str()))));
    cpp.extend(args.lib_dirs.iter().map(|l| ("libdir", Some(l.as_str()))));
    if pp.print_includes {
        cpp.push(("cpphdrs", None));
    }
    for (name, value) in cpp {
        dtrace
            .set_opt(name, value)
            .map_err(|e| Fail::error(format!("dtrace: failed to set -x {name}: {}", e.0)))?;
    }
    // -l implies -Z: listing a description that matches nothing is not an error.
    if args.mode == Mode::List && !args.zdefs {
        let _ = dtrace.set_opt("zdefs", None);
    }
    Ok(())
}

/// A compiled program: how dtrace names it, what it matched, and (with `-v`)
/// its stability report.
struct Program {
    /// ("description", "BEGIN ") or ("script", "x.d").
    description: (&'static str, String),
    matched: usize,
    stability: Option<dtrace::StabilityReport>,
}

impl Program {
    /// `-v`'s "Stability attributes for ..." text ("" without `-v`).
    fn report(&self, compile_only: bool) -> String {
        let (what, name) = &self.description;
        match &self.stability {
            Some(r) => crate::verbose::program_report(what, name, r, compile_only),
            None => String::new(),
        }
    }
}

/// A source ready to compile, and how dtrace names it in messages.
struct Loaded {
    source: Source,
    /// `$0..$n`.
    macro_args: Vec<String>,
    /// ("description", "BEGIN ") or ("script", "x.d").
    description: (&'static str, String),
}

fn load_sources(args: &Args) -> Result<Vec<Loaded>, Fail> {
    let mut loaded = Vec::new();
    for s in &args.sources {
        let (source, zero, description) = match s {
            SourceArg::Spec { kind, text } => (
                Source::Spec {
                    kind: *kind,
                    text: text.clone(),
                },
                args.argv0.clone(),
                ("description", spec_name(text).to_string()),
            ),
            SourceArg::Script(path) => {
                let bytes = std::fs::read(path).map_err(|e| {
                    Fail::error(format!(
                        "dtrace: failed to open {path}: {}",
                        proc::strerror(&e)
                    ))
                })?;
                (
                    Source::Script {
                        path: path.clone(),
                        text: String::from_utf8_lossy(&bytes).into_owned(),
                    },
                    path.clone(),
                    ("script", path.clone()),
                )
            }
        };
        let mut macro_args = vec![zero];
        macro_args.extend(args.macro_args.iter().cloned());
        loaded.push(Loaded {
            source,
            macro_args,
            description,
        });
    }
    Ok(loaded)
}

/// dtrace reports a probe specifier by its description part: the text before
/// the first `{`, `/` or `;` (so `BEGIN { exit(0); }` is reported as `BEGIN `).
pub fn spec_name(text: &str) -> &str {
    match text.find(['{', '/', ';']) {
        Some(i) => &text[..i],
        None => text,
    }
}

fn compile_failure(e: &CompileError, rich: bool) -> Fail {
    let mut text = e.message.clone();
    if rich && !e.rich.is_empty() {
        text.push('\n');
        text.push_str(e.rich.trim_end_matches('\n'));
    }
    Fail::error(text)
}

fn exec_failure(e: &ExecError, verbose: bool) -> Fail {
    let mut text = e.message.clone();
    if let (true, Some(detail)) = (verbose, &e.detail) {
        text.push('\n');
        text.push_str(detail.trim_end_matches('\n'));
    }
    Fail::error(text)
}

/// An interrupt before tracing started ends dtrace as the signal would have.
fn check_interrupted(signals: &SignalFd) -> Result<(), Fail> {
    for s in signals.read().unwrap_or_default() {
        match s {
            Signal::Int => return Err(Fail::silent(128 + 2)),
            Signal::Term => return Err(Fail::silent(128 + 15)),
            Signal::Chld => {}
        }
    }
    Ok(())
}

/// `dtrace -l`: `   ID   PROVIDER            MODULE                          FUNCTION NAME`.
fn list(
    dtrace: &mut Dtrace,
    args: &Args,
    sources: &[Loaded],
    rich: bool,
    vars: &HashMap<String, String>,
) -> Result<i32, Fail> {
    let mut out = Output::open(args.output.as_deref()).map_err(Fail::error)?;
    // Only -lv shows argument types, so only -lv has the matched probes resolved.
    let with_args = args.verbose > 0;
    let mut ids = Vec::new();
    if sources.is_empty() {
        ids = dtrace
            .list_ids(None, vars, with_args)
            .map_err(|e| compile_failure(&e, rich))?
            .0;
    }
    let mut misses = Vec::new();
    for loaded in sources {
        let (found, missed) = dtrace
            .list_ids(Some(&loaded.source), vars, with_args)
            .map_err(|e| compile_failure(&e, rich))?;
        ids.extend(found);
        misses.extend(missed);
    }
    // Rows go out in blocks as they are formatted: -l of everything is 100k+
    // rows, and none of them is built as a string of its own.
    let mut text = String::with_capacity(LIST_BLOCK + 4096);
    text.push_str(&listing_line(
        "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME",
    ));
    let mut types = Vec::new();
    for row in dtrace.listing_rows(&ids) {
        let p = row.probe;
        push_listing_row(
            &mut text,
            p.id,
            [&p.provider, &p.module, &p.function, &p.name],
        );
        if with_args {
            types.clear();
            types.extend(row.arg_types().map(str::to_string));
            let info = crate::verbose::probe_info(row.attr(), row.arg_attr(), &types);
            text.push_str(&info);
        }
        if text.len() >= LIST_BLOCK {
            if out.write_all(text.as_bytes()).is_err() {
                break;
            }
            text.clear();
        }
    }
    let _ = out.write_all(text.as_bytes());
    out.check().map_err(Fail::error)?;
    for m in misses {
        eprintln!("{m}");
    }
    Ok(0)
}

/// How much of `dtrace -l`'s text is formatted before it is written.
const LIST_BLOCK: usize = 64 << 10;

fn listing_line(id: &str, provider: &str, module: &str, function: &str, name: &str) -> String {
    format!("{id:>5} {provider:>10} {module:>17} {function:>33} {name}\n")
}

/// One probe's `-l` line appended to `text`: the ID and the provider, module
/// and function right-aligned in columns of 5, 10, 17 and 33 characters (wider
/// values push the rest along), then the name.
fn push_listing_row(text: &mut String, id: u32, names: [&str; 4]) {
    let mut digits = [0u8; 10];
    let mut n = id;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let id = std::str::from_utf8(&digits[at..]).unwrap_or("0");
    let [provider, module, function, name] = names;
    for (value, width) in [(id, 5), (provider, 10), (module, 17), (function, 33)] {
        let chars = if value.is_ascii() {
            value.len()
        } else {
            value.chars().count()
        };
        for _ in chars..width {
            text.push(' ');
        }
        text.push_str(value);
        text.push(' ');
    }
    text.push_str(name);
    text.push('\n');
}

/// Enable, trace, stop, and print what is left. Returns the exit status.
fn trace(
    dtrace: Dtrace,
    args: &Args,
    programs: &[Program],
    mut targets: Targets,
    signals: &SignalFd,
) -> Result<i32, Fail> {
    let options = dtrace.options().clone();
    let quiet = options.quiet;
    let testing = options.testing;
    let zdefs = options.zdefs || args.zdefs;
    let verbose = options.verbose || args.verbose > 0;
    let hz = options.switchrate_hz.max(1);
    let timeout = Duration::from_nanos(
        options
            .switchrate_ns
            .unwrap_or(1_000_000_000 / hz)
            .clamp(1_000_000, 1_000_000_000),
    );

    let out = Output::open(args.output.as_deref()).map_err(Fail::error)?;
    let mut out = Sink::new(options.oformat, out);

    let mut session = dtrace.exec().map_err(|e| exec_failure(&e, verbose))?;
    // -x bpflog: every program's verifier log, a "BPF: " prefix on each line.
    for (_, log) in session.verifier_logs() {
        for line in log.lines() {
            say(&format!("BPF: {line}"));
        }
    }
    let notice = |text: &str| {
        if !quiet {
            say(&format!("dtrace: {text}"));
        }
    };
    if let Some(size) = session.buffer_lowered() {
        say(&format!(
            "dtrace: buffer size lowered to {}",
            scaled_size(size)
        ));
    }
    let mut total = 0usize;
    for p in programs {
        let ((desc, name), matched) = (&p.description, p.matched);
        notice(&format!(
            "{desc} '{name}' matched {matched} probe{}",
            if matched == 1 { "" } else { "s" }
        ));
        if let Some(text) = out.text() {
            let _ = text.write_all(p.report(false).as_bytes());
        }
        total += matched;
    }
    if total == 0 && !zdefs {
        let what = if programs.is_empty() {
            "specified"
        } else {
            "matched"
        };
        return Err(Fail::error(format!("dtrace: no probes {what}")));
    }

    session
        .add_wake_fd(signals.as_raw_fd())
        .map_err(|e| exec_failure(&e, verbose))?;
    for fd in targets.wake_fds() {
        session
            .add_wake_fd(fd)
            .map_err(|e| exec_failure(&e, verbose))?;
    }

    // Interrupted while loading: stop before BEGIN fires, as the signal would have.
    check_interrupted(signals)?;

    let mut state = LoopState::default();
    let started = std::time::Instant::now();
    let mut exited = false;
    // The session holds its processes while probes of objects they load
    // are attached, from the start.
    for pid in targets.pids() {
        session.add_target(pid);
    }
    match session.go(&mut out) {
        Ok(WorkStatus::Done) => {
            state.done = true;
            exited = true;
        }
        Ok(WorkStatus::Okay) => {}
        Err(e) => {
            out.close();
            return Err(exec_failure(&e, verbose));
        }
    }
    if args.destructive || options.destructive {
        notice("allowing destructive actions");
    }
    if !state.done {
        // Read each target's address space while it is still held with its
        // objects mapped: one that exits at once still resolves.
        for pid in targets.pids() {
            session.watch_process(pid);
        }
        if let Err(m) = targets.release_all() {
            state.fail(Fail::error(m));
        }
    }

    while !state.done {
        let _ = out.out().flush();
        match session.work(timeout, &mut out) {
            Ok(WorkStatus::Done) => {
                state.done = true;
                exited = true;
            }
            Ok(WorkStatus::Okay) => {}
            Err(e) => state.fail(exec_failure(&e, verbose)),
        }
        if out.out().broken_pipe() {
            state.fail(Fail::silent(1));
        }
        // The newline that ends the line an interrupt left; dtrace(1)'s testing
        // mode leaves it out, as it lands at a random place in the output.
        state.take_signals(signals, out.text().filter(|_| !testing));
        for line in targets.poll() {
            let _ = out.out().flush();
            notice(&line);
        }
        if targets.all_gone() {
            state.done = true;
        }
    }

    if exited && state.failure.is_none() {
        await_exit_notice(started, &options, signals, &mut state);
    }

    // Stop: detach every probe and fire END. Signals stay blocked, so a second
    // interrupt cannot kill us before the probes are gone; it only skips the
    // final aggregation printing.
    if let Err(e) = session.stop(&mut out) {
        state.fail(exec_failure(&e, verbose));
    }
    state.take_signals(signals, None);
    // The cosmetic newline at the end, printed even when quiet and in testing
    // mode (dtrace(1) writes it unconditionally once its loop ends, before the
    // final aggregations).
    if let Some(text) = out.text() {
        let _ = text.write_all(b"\n");
    }
    let status = finish(session, &mut state, &mut out, verbose);
    // A structured document is closed on every way out: exit(), an
    // interrupt or the -c command's end.
    out.close();
    targets.kill_all();
    if let Err(m) = out.out().check() {
        state.fail(Fail::error(m));
    }
    if options.core {
        // -x core: leave a core file, as libdtrace's debugging aid does.
        let _ = out.out().flush();
        dtrace::dump_core();
    }
    match state.failure {
        Some(f) => Err(f),
        None => Ok(status),
    }
}

/// dtrace(1) acts on `exit()` when it next reads the buffers (`switchrate`)
/// and checks the status (`statusrate`), each a whole number of periods after
/// tracing started. With those options set, wait for that moment (an
/// interrupt ends the wait).
fn await_exit_notice(
    started: std::time::Instant,
    options: &dtrace::Options,
    signals: &SignalFd,
    state: &mut LoopState,
) {
    let now = started.elapsed();
    let next_tick = |period: u64| {
        let period = Duration::from_nanos(period.max(1));
        let ticks = (now.as_nanos() / period.as_nanos()) as u32 + 1;
        period.saturating_mul(ticks)
    };
    let Some(at) = [options.switchrate_ns, options.statusrate_ns]
        .into_iter()
        .flatten()
        .map(next_tick)
        .max()
    else {
        return;
    };
    while started.elapsed() < at && state.interrupts == 0 {
        let left = at.saturating_sub(started.elapsed());
        std::thread::sleep(left.min(Duration::from_millis(50)));
        state.take_signals(signals, None);
    }
}

/// A byte count as dtrace(1) prints a buffer size: in the largest unit
/// (k, m, g, t) that divides it.
fn scaled_size(bytes: u64) -> String {
    let mut n = bytes;
    let mut unit = 0;
    while unit < 4 && n >= 1024 && n % 1024 == 0 {
        n /= 1024;
        unit += 1;
    }
    match unit {
        0 => n.to_string(),
        u => format!("{n}{}", ['k', 'm', 'g', 't'][u - 1]),
    }
}

fn finish(session: Session, state: &mut LoopState, out: &mut Sink, verbose: bool) -> i32 {
    if state.interrupts > 1 || state.failure.is_some() {
        // `session` is dropped on return: every probe is detached and nothing
        // more is printed.
        return 0;
    }
    match session.finish(out) {
        Ok(status) => status,
        Err(e) => {
            state.fail(exec_failure(&e, verbose));
            1
        }
    }
}

#[derive(Default)]
struct LoopState {
    done: bool,
    interrupts: u32,
    /// The first failure; tracing stops and it is reported after cleanup.
    failure: Option<Fail>,
}

impl LoopState {
    fn fail(&mut self, f: Fail) {
        self.done = true;
        if self.failure.is_none() {
            self.failure = Some(f);
        }
    }

    /// SIGINT/SIGTERM stop tracing; while tracing (`out` given), the first also
    /// ends the current output line, as dtrace does even when quiet. SIGCHLD only
    /// wakes the loop, which polls the targets anyway.
    fn take_signals(&mut self, signals: &SignalFd, out: Option<&mut Output>) {
        let received = match signals.read() {
            Ok(r) => r,
            Err(e) => {
                self.fail(Fail::error(format!(
                    "dtrace: failed to read signals: {}",
                    proc::strerror(&e)
                )));
                return;
            }
        };
        let first = self.interrupts == 0;
        let n = received
            .iter()
            .filter(|s| matches!(s, Signal::Int | Signal::Term))
            .count();
        if n == 0 {
            return;
        }
        self.interrupts += n as u32;
        self.done = true;
        if let (true, Some(out)) = (first, out) {
            let _ = out.write_all(b"\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_sizes_print_in_the_largest_dividing_unit() {
        assert_eq!(scaled_size(512 << 20), "512m");
        assert_eq!(scaled_size(3 << 10), "3k");
        assert_eq!(scaled_size(1 << 30), "1g");
        assert_eq!(scaled_size(1000), "1000");
        assert_eq!(scaled_size(1536 << 10), "1536k");
    }

    #[test]
    fn spec_names_are_cropped_as_dtrace_reports_them() {
        assert_eq!(spec_name("BEGIN"), "BEGIN");
        assert_eq!(spec_name("BEGIN { exit(0); }"), "BEGIN ");
        assert_eq!(
            spec_name("syscall::read:entry/pid == 1/{}"),
            "syscall::read:entry"
        );
        assert_eq!(spec_name("BEGIN;"), "BEGIN");
    }

    #[test]
    fn listing_columns() {
        assert_eq!(
            listing_line("ID", "PROVIDER", "MODULE", "FUNCTION", "NAME"),
            "   ID   PROVIDER            MODULE                          FUNCTION NAME\n"
        );
        let mut text = String::new();
        push_listing_row(&mut text, 1, ["dtrace", "", "", "BEGIN"]);
        push_listing_row(&mut text, 123456, ["fbt", "vmlinux", "vfs_read", "entry"]);
        let long = "f".repeat(40);
        push_listing_row(&mut text, 7, ["sdt", "sched", &long, "é"]);
        push_listing_row(&mut text, 8, ["pid9", "a.out", "naïve", "x"]);
        let expect = [
            format!(
                "{:>5} {:>10} {:>17} {:>33} {}\n",
                1, "dtrace", "", "", "BEGIN"
            ),
            format!(
                "{:>5} {:>10} {:>17} {:>33} {}\n",
                123456, "fbt", "vmlinux", "vfs_read", "entry"
            ),
            format!(
                "{:>5} {:>10} {:>17} {:>33} {}\n",
                7, "sdt", "sched", long, "é"
            ),
            format!(
                "{:>5} {:>10} {:>17} {:>33} {}\n",
                8, "pid9", "a.out", "naïve", "x"
            ),
        ];
        assert_eq!(text, expect.concat());
    }

    #[test]
    fn compile_errors_show_rich_form_on_request() {
        let e = CompileError {
            message: "dtrace: failed to compile script x.d: line 1: syntax error".into(),
            rich: "x.d:1:5\n  BEGIN {\n      ^\n".into(),
            ..CompileError::default()
        };
        assert_eq!(compile_failure(&e, false).message, Some(e.message.clone()));
        assert_eq!(
            compile_failure(&e, true).message,
            Some(format!("{}\nx.d:1:5\n  BEGIN {{\n      ^", e.message))
        );
    }
}
