//! An in-tree mutation fuzzer for the D front end: lexer, parser, type checker
//! (and code generation of what the checker accepts).
//!
//! cargo-fuzz needs a nightly compiler; this needs nothing but the workspace. It
//! seeds a corpus with the project's own D programs, mutates them
//! ([`mutate`]), runs each input through [`target::Target`] under
//! `catch_unwind`, and reports panics and slow inputs. Inputs that produce a
//! diagnostic never seen before join the corpus: a cheap stand-in for coverage.
//!
//! `src/main.rs` is the command (a supervisor that restarts a worker process
//! after an abort such as a stack overflow); `tests/smoke.rs` runs a short
//! fixed-seed session as part of `cargo test`.

pub mod corpus;
pub mod gen;
pub mod mutate;
pub mod rng;
pub mod target;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use rng::Rng;
pub use target::{Outcome, Stages, Target};

/// Limits of one fuzzing session.
#[derive(Debug, Clone)]
pub struct Config {
    pub seed: u64,
    /// Stop after this many cases (if set).
    pub cases: Option<u64>,
    /// Stop after this long (if set).
    pub duration: Option<Duration>,
    /// Longest input produced, in bytes.
    pub max_len: usize,
    /// A case that takes longer than this is reported as slow.
    pub slow: Duration,
    /// Most corpus entries kept.
    pub max_corpus: usize,
    pub stages: Stages,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 1,
            cases: None,
            duration: None,
            max_len: 64 << 10,
            slow: Duration::from_secs(1),
            max_corpus: 5_000,
            stages: Stages::default(),
        }
    }
}

/// Why an input is interesting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingKind {
    /// It panicked: the message and, if known, where.
    Panic(String),
    /// It took this long.
    Slow(Duration),
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub kind: FindingKind,
    pub input: Vec<u8>,
}

/// What a session did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub cases: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub corpus: usize,
    pub shapes: usize,
    pub findings: Vec<Finding>,
}

/// Where the last panic happened (`file:line:col`), filled by the hook that
/// [`quiet_panics`] installs.
pub type PanicLocation = Arc<Mutex<Option<String>>>;

/// Replace the panic hook by one that prints nothing and records the panic's
/// location instead: the fuzzer reports panics itself.
pub fn quiet_panics() -> PanicLocation {
    let loc: PanicLocation = Arc::new(Mutex::new(None));
    let hook_loc = Arc::clone(&loc);
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut g) = hook_loc.lock() {
            *g = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        }
    }));
    loc
}

/// FNV-1a, for artifact names.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Run one fuzzing session over `corpus` (which grows). `before_case` sees each
/// input before it runs (the worker saves it, in case the process dies);
/// `on_finding` sees every panic and slow input as it is found.
pub fn fuzz(
    corpus: &mut Vec<Vec<u8>>,
    cfg: &Config,
    panic_location: Option<&PanicLocation>,
    before_case: impl FnMut(&[u8]),
    on_finding: impl FnMut(&Finding),
) -> Report {
    let mut target = Target::new(cfg.stages);
    fuzz_with(
        corpus,
        cfg,
        panic_location,
        |input| target.run(input),
        before_case,
        on_finding,
    )
}

/// [`fuzz`] with another code under test (`run` must catch its own panics,
/// as [`Target::run`] does).
pub fn fuzz_with(
    corpus: &mut Vec<Vec<u8>>,
    cfg: &Config,
    panic_location: Option<&PanicLocation>,
    mut run: impl FnMut(&[u8]) -> Outcome,
    mut before_case: impl FnMut(&[u8]),
    mut on_finding: impl FnMut(&Finding),
) -> Report {
    let mut rng = Rng::new(cfg.seed);
    let mut shapes: HashSet<String> = HashSet::new();
    let mut seen_panics: HashSet<String> = HashSet::new();
    let mut report = Report::default();
    // Inputs the checker accepted: half of all mutations start from one.
    let mut good: Vec<Vec<u8>> = Vec::new();
    if corpus.is_empty() {
        corpus.push(b"BEGIN { exit(0); }".to_vec());
    }
    let start = Instant::now();
    // The corpus itself runs first, unmutated.
    let mut seeds = corpus.len();
    loop {
        if cfg.cases.is_some_and(|n| report.cases >= n)
            || cfg.duration.is_some_and(|d| start.elapsed() >= d)
        {
            break;
        }
        let input = if seeds > 0 {
            seeds -= 1;
            corpus.get(seeds).cloned().unwrap_or_default()
        } else {
            let from = if good.is_empty() || rng.one_in(2) {
                &*corpus
            } else {
                &good
            };
            let a = rng.below(from.len());
            let b = rng.below(corpus.len());
            let (Some(x), Some(y)) = (from.get(a), corpus.get(b)) else {
                continue;
            };
            mutate::mutate(&mut rng, x, y, cfg.max_len)
        };
        before_case(&input);
        let t0 = Instant::now();
        let outcome = run(&input);
        let took = t0.elapsed();
        report.cases += 1;
        let mut finding = None;
        match &outcome {
            Outcome::Accepted => report.accepted += 1,
            Outcome::Rejected(_) | Outcome::NoProbes => report.rejected += 1,
            Outcome::Panicked(msg) => {
                let loc = panic_location
                    .and_then(|l| l.lock().ok().and_then(|g| g.clone()))
                    .unwrap_or_default();
                let key = format!("{msg} at {loc}");
                if seen_panics.insert(key.clone()) {
                    finding = Some(FindingKind::Panic(key));
                }
            }
        }
        if finding.is_none() && took > cfg.slow {
            finding = Some(FindingKind::Slow(took));
        }
        if let Some(kind) = finding {
            let f = Finding { kind, input };
            on_finding(&f);
            report.findings.push(f);
            continue;
        }
        if outcome == Outcome::Accepted {
            if good.len() < cfg.max_corpus {
                good.push(input.clone());
            } else if let Some(slot) = good.get_mut(rng.below(cfg.max_corpus)) {
                *slot = input.clone();
            }
        }
        let shape = match outcome {
            Outcome::Accepted => format!("ok {}", input.len().checked_ilog2().unwrap_or(0)),
            Outcome::Rejected(s) => s,
            Outcome::NoProbes => "noprobes".into(),
            Outcome::Panicked(_) => continue,
        };
        if shapes.insert(shape) {
            if corpus.len() < cfg.max_corpus {
                corpus.push(input);
            } else {
                let i = rng.below(corpus.len());
                if let Some(slot) = corpus.get_mut(i) {
                    *slot = input;
                }
            }
        }
    }
    report.corpus = corpus.len();
    report.shapes = shapes.len();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loop reports each distinct panic once, and slow inputs.
    #[test]
    fn findings_are_reported() {
        let mut corpus = vec![b"BEGIN { x = 1; }".to_vec()];
        let cfg = Config {
            cases: Some(3000),
            slow: Duration::from_millis(20),
            ..Config::default()
        };
        let mut seen = 0;
        let report = fuzz_with(
            &mut corpus,
            &cfg,
            None,
            |input| {
                if input.contains(&b'@') {
                    Outcome::Panicked("boom".into())
                } else if input.contains(&b'%') {
                    std::thread::sleep(Duration::from_millis(25));
                    Outcome::Accepted
                } else {
                    Outcome::Rejected("D_SYNTAX".into())
                }
            },
            |_| {},
            |_| seen += 1,
        );
        let panics = report
            .findings
            .iter()
            .filter(|f| matches!(f.kind, FindingKind::Panic(_)))
            .count();
        assert_eq!(panics, 1, "one distinct panic");
        assert!(report
            .findings
            .iter()
            .any(|f| matches!(f.kind, FindingKind::Slow(_)) && f.input.contains(&b'%')));
        assert_eq!(seen, report.findings.len());
        assert_eq!(report.cases, 3000);
    }
}
