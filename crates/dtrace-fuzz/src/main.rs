//! `dtrace-fuzz`: fuzz the D front end.
//!
//! ```text
//! dtrace-fuzz [--seconds N] [--seed N] [--artifacts DIR] [--no-codegen] [DIR|FILE]...
//! dtrace-fuzz --replay FILE...
//! ```
//!
//! Seeds come from the given directories (default: the project's test programs).
//! The command is a supervisor: it runs the fuzzer in a worker process (itself
//! with `--worker`), which saves each input to `DIR/.current` before running it.
//! A worker killed by a signal (stack overflow, abort) or stuck on one input for
//! more than 10 seconds leaves that input behind; the supervisor files it as
//! `crash-*.d` or `hang-*.d` and starts a new worker. Panics and inputs slower
//! than one second are filed by the worker as `panic-*.d` and `slow-*.d`.
//! Exit status: 0 if nothing was found, 1 otherwise, 2 for a bad command line.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dtrace_fuzz::{corpus, fuzz, hash, quiet_panics, Config, Finding, FindingKind, Target};

/// A worker that spends this long on one input is stuck.
const HANG: Duration = Duration::from_secs(10);
/// Exit status of a worker that found a hang.
const EXIT_HANG: i32 = 3;

struct Cli {
    seconds: u64,
    seed: u64,
    artifacts: PathBuf,
    no_codegen: bool,
    worker: bool,
    replay: bool,
    paths: Vec<PathBuf>,
}

fn parse_cli() -> Result<Cli, String> {
    let mut cli = Cli {
        seconds: 60,
        seed: 1,
        artifacts: PathBuf::from("fuzz-artifacts"),
        no_codegen: false,
        worker: false,
        replay: false,
        paths: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{what} needs a number"))
        };
        match a.as_str() {
            "--seconds" => cli.seconds = num("--seconds")?,
            "--seed" => cli.seed = num("--seed")?,
            "--artifacts" => {
                cli.artifacts = args
                    .next()
                    .map(PathBuf::from)
                    .ok_or("--artifacts needs a directory")?
            }
            "--no-codegen" => cli.no_codegen = true,
            "--worker" => cli.worker = true,
            "--replay" => cli.replay = true,
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => cli.paths.push(PathBuf::from(a)),
        }
    }
    Ok(cli)
}

fn main() -> ExitCode {
    let cli = match parse_cli() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("dtrace-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let code = if cli.replay {
        replay(&cli)
    } else if cli.worker {
        worker(&cli)
    } else {
        supervise(&cli)
    };
    ExitCode::from(code)
}

/// Run each given file once and say what happened.
fn replay(cli: &Cli) -> u8 {
    let loc = quiet_panics();
    let mut target = Target::new(stages(cli));
    let mut bad = 0;
    for p in &cli.paths {
        let Ok(bytes) = std::fs::read(p) else {
            eprintln!("{}: cannot read", p.display());
            bad += 1;
            continue;
        };
        let t0 = Instant::now();
        let outcome = target.run(&bytes);
        let where_ = loc.lock().ok().and_then(|g| g.clone()).unwrap_or_default();
        println!(
            "{}: {:?} in {:?}{}",
            p.display(),
            outcome,
            t0.elapsed(),
            if matches!(outcome, dtrace_fuzz::Outcome::Panicked(_)) {
                format!(" at {where_}")
            } else {
                String::new()
            }
        );
        if matches!(outcome, dtrace_fuzz::Outcome::Panicked(_)) {
            bad += 1;
        }
    }
    u8::from(bad > 0)
}

fn stages(cli: &Cli) -> dtrace_fuzz::Stages {
    dtrace_fuzz::Stages {
        sema: true,
        codegen: !cli.no_codegen,
    }
}

fn seed_dirs(cli: &Cli) -> Vec<PathBuf> {
    if !cli.paths.is_empty() {
        return cli.paths.clone();
    }
    let root = corpus::workspace_root();
    corpus::DEFAULT_DIRS.iter().map(|d| root.join(d)).collect()
}

fn save(dir: &Path, prefix: &str, input: &[u8]) -> PathBuf {
    let path = dir.join(format!("{prefix}-{:016x}.d", hash(input)));
    if let Err(e) = std::fs::write(&path, input) {
        eprintln!("dtrace-fuzz: cannot write {}: {e}", path.display());
    }
    path
}

/// The worker: fuzz on a thread with a main-thread-sized stack while this
/// thread watches for an input that never finishes.
fn worker(cli: &Cli) -> u8 {
    let current_path = cli.artifacts.join(".current");
    let mut current = match File::create(&current_path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("dtrace-fuzz: cannot create {}: {e}", current_path.display());
            return 2;
        }
    };
    let started_ms = Arc::new(AtomicU64::new(0));
    let epoch = Instant::now();
    let cfg = Config {
        seed: cli.seed,
        duration: Some(Duration::from_secs(cli.seconds)),
        stages: stages(cli),
        ..Config::default()
    };
    let dirs = seed_dirs(cli);
    let artifacts = cli.artifacts.clone();
    let flag = Arc::clone(&started_ms);
    let run = std::thread::Builder::new()
        .name("fuzz".into())
        .stack_size(8 << 20)
        .spawn(move || {
            let loc = quiet_panics();
            let mut seeds = corpus::load(&dirs);
            eprintln!("dtrace-fuzz: {} seed inputs", seeds.len());
            let before = |input: &[u8]| {
                flag.store(epoch.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
                let _ = current.seek(SeekFrom::Start(0));
                let _ = current.set_len(0);
                let _ = current.write_all(input);
            };
            let found = |f: &Finding| {
                let (prefix, what) = match &f.kind {
                    FindingKind::Panic(m) => ("panic", format!("panic: {m}")),
                    FindingKind::Slow(d) => ("slow", format!("slow: {d:?}")),
                };
                let p = save(&artifacts, prefix, &f.input);
                eprintln!("dtrace-fuzz: {what} -> {}", p.display());
            };
            fuzz(&mut seeds, &cfg, Some(&loc), before, found)
        });
    let handle = match run {
        Ok(h) => h,
        Err(e) => {
            eprintln!("dtrace-fuzz: cannot start the fuzzing thread: {e}");
            return 2;
        }
    };
    while !handle.is_finished() {
        std::thread::sleep(Duration::from_millis(200));
        let s = started_ms.load(Ordering::Relaxed);
        let now = epoch.elapsed().as_millis() as u64;
        if s > 0 && now.saturating_sub(s) > HANG.as_millis() as u64 {
            eprintln!("dtrace-fuzz: an input has run for over {HANG:?}");
            std::process::exit(EXIT_HANG);
        }
    }
    match handle.join() {
        Ok(r) => {
            println!(
                "cases {} accepted {} rejected {} corpus {} shapes {} findings {}",
                r.cases,
                r.accepted,
                r.rejected,
                r.corpus,
                r.shapes,
                r.findings.len()
            );
            u8::from(!r.findings.is_empty())
        }
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            eprintln!("dtrace-fuzz: the fuzzer itself panicked: {msg}");
            1
        }
    }
}

/// Run workers until the time is up, filing the input that killed any of them.
fn supervise(cli: &Cli) -> u8 {
    if let Err(e) = std::fs::create_dir_all(&cli.artifacts) {
        eprintln!(
            "dtrace-fuzz: cannot create {}: {e}",
            cli.artifacts.display()
        );
        return 2;
    }
    let Ok(me) = std::env::current_exe() else {
        eprintln!("dtrace-fuzz: cannot find my own executable");
        return 2;
    };
    let deadline = Instant::now() + Duration::from_secs(cli.seconds);
    let mut found = false;
    let mut seed = cli.seed;
    loop {
        let left = deadline.saturating_duration_since(Instant::now()).as_secs();
        if left == 0 {
            break;
        }
        let mut cmd = Command::new(&me);
        cmd.arg("--worker")
            .args(["--seconds", &left.to_string()])
            .args(["--seed", &seed.to_string()])
            .arg("--artifacts")
            .arg(&cli.artifacts)
            .args(&cli.paths);
        if cli.no_codegen {
            cmd.arg("--no-codegen");
        }
        let status = match cmd.status() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("dtrace-fuzz: cannot run a worker: {e}");
                return 2;
            }
        };
        match status.code() {
            Some(0) => break,
            Some(1) => {
                found = true;
                break;
            }
            Some(EXIT_HANG) | None => {
                found = true;
                let kind = if status.code().is_some() {
                    "hang"
                } else {
                    "crash"
                };
                let input = std::fs::read(cli.artifacts.join(".current")).unwrap_or_default();
                let p = save(&cli.artifacts, kind, &input);
                eprintln!(
                    "dtrace-fuzz: worker died ({status}); input -> {}",
                    p.display()
                );
                seed = seed.wrapping_add(1);
            }
            Some(_) => return 2,
        }
    }
    u8::from(found)
}
