//! Aggregation snapshot benchmark (`cargo bench -p dtrace --bench aggsnap`,
//! as root: it loads BPF; without BPF it says why and exits).
//!
//! Traces this process's `getppid(2)` calls with `@[i++] = count()` (or
//! shuffled keys, see `DTRACE_BENCH_SHUFFLE`), makes
//! `DTRACE_BENCH_KEYS` calls (default 50,000), so the aggregation holds that
//! many keys, then times [`dtrace::Session::snapshot`]: reading every key and
//! its per-CPU values from the kernel, merging them and sorting the rows (what
//! `printa()` does before formatting; the session keeps each snapshot, whose
//! memory the next reuses, as a program snapshotting periodically would).
//! Each snapshot is repeated (`DTRACE_BENCH_RUNS` times, default 9); the
//! first (into fresh memory), the minimum and the median are printed. Results
//! go to docs/PERFORMANCE.md.

use std::hint::black_box;
use std::time::{Duration, Instant};

use dtrace::{Dtrace, Event, Handler};
use dtrace_sys::{Features, TestGate};
use std::ops::ControlFlow;

fn main() {
    let features = Features::probe(&dtrace_sys::kernel());
    if let TestGate::Skip(why) | TestGate::Fail(why) = dtrace_sys::test_gate(&features, false) {
        eprintln!("aggsnap: BPF is not usable here ({why}); nothing measured");
        return;
    }
    let keys: usize = std::env::var("DTRACE_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000);
    let runs: usize = std::env::var("DTRACE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(9);
    // DTRACE_BENCH_SHUFFLE=1: keys in no particular order (a multiplicative
    // hash of the call number, distinct modulo a prime above the key count),
    // so that sorting has work to do; by default they come in key order.
    let key = if std::env::var_os("DTRACE_BENCH_SHUFFLE").is_some() {
        "(i++ * 40503) % 1000003"
    } else {
        "i++"
    };
    let program = format!(
        "syscall::getppid:entry /pid == {}/ {{ @[{key}] = count(); }}",
        std::process::id()
    );
    let t0 = Instant::now();
    let mut dt = match Dtrace::open(true) {
        Ok(dt) => dt,
        Err(e) => {
            eprintln!("aggsnap: cannot open: {e}");
            return;
        }
    };
    if let Err(e) = dt.compile_str(&program, &[]) {
        eprintln!("aggsnap: cannot compile: {}", e.message);
        return;
    }
    let mut s = match dt.exec() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("aggsnap: cannot start: {}", e.message);
            return;
        }
    };
    let opened = t0.elapsed();
    if let Err(e) = s.go(&mut Handler::new(|_: &Event| ControlFlow::Continue(()))) {
        eprintln!("aggsnap: cannot go: {}", e.message);
        return;
    }
    for _ in 0..keys {
        black_box(std::os::unix::process::parent_id());
    }
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut rows = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let reports = match s.snapshot() {
            Ok(r) => r,
            Err(e) => {
                eprintln!("aggsnap: snapshot failed: {}", e.message);
                return;
            }
        };
        rows = reports.iter().map(|r| r.rows.len()).sum();
        black_box(reports);
        times.push(t.elapsed());
    }
    let first = times[0];
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "open+compile+exec {:.1} ms; snapshot of {rows} keys ({keys} calls): first {:.2} ms, min {:.2} ms, median {:.2} ms ({runs} runs)",
        ms(opened),
        ms(first),
        ms(times[0]),
        ms(times[runs / 2]),
    );
}
