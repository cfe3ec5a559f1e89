//! A few seconds of fuzzing as part of `cargo test`: the project's own D
//! programs, mutated from a fixed seed, must not make the front end panic.
//! (Long runs: `cargo run --release -p dtrace-fuzz -- --seconds 600`.)

use std::time::Duration;

use dtrace_fuzz::{corpus, fuzz, quiet_panics, Config, FindingKind};

/// The compiler's recursion is bounded by the parser's nesting limit; a
/// debug build needs the same 8 MiB stack as dtrace's main thread (and the
/// fuzzer's worker) for the deepest programs, more than a test thread's 2 MiB.
#[test]
fn fixed_seed_session_finds_nothing() {
    let worker = std::thread::Builder::new()
        .name("smoke".into())
        .stack_size(8 << 20)
        .spawn(session);
    match worker.map(|h| h.join()) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => std::panic::resume_unwind(e),
        Err(e) => panic!("cannot start the fuzzing thread: {e}"),
    }
}

fn session() {
    let loc = quiet_panics();
    let root = corpus::workspace_root();
    let dirs: Vec<_> = corpus::DEFAULT_DIRS.iter().map(|d| root.join(d)).collect();
    let mut seeds = corpus::load(&dirs);
    assert!(seeds.len() > 50, "only {} seed inputs", seeds.len());
    let cfg = Config {
        seed: 7,
        cases: Some(4000),
        duration: Some(Duration::from_secs(20)),
        // Debug builds are slow; only a stuck input matters here.
        slow: Duration::from_secs(10),
        ..Config::default()
    };
    let report = fuzz(&mut seeds, &cfg, Some(&loc), |_| {}, |_| {});
    let _ = std::panic::take_hook();
    let panics: Vec<String> = report
        .findings
        .iter()
        .map(|f| match &f.kind {
            FindingKind::Panic(m) => {
                format!("panic {m} on input {:?}", String::from_utf8_lossy(&f.input))
            }
            FindingKind::Slow(d) => {
                format!("slow ({d:?}) input {:?}", String::from_utf8_lossy(&f.input))
            }
        })
        .collect();
    assert!(panics.is_empty(), "{}", panics.join("\n"));
    assert!(report.cases > 100, "ran only {} cases", report.cases);
    assert!(report.accepted > 0, "no input was accepted");
}
