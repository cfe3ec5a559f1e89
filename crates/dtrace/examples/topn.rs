//! A live top-N: counts system calls by process and, every second, prints the
//! N busiest from an aggregation snapshot (no text output from dtrace itself).
//!
//! ```text
//! sudo cargo run --example topn -- 5 10
//! ```
//! (the 5 busiest, for 10 seconds)

use dtrace::{AggValue, Dtrace, Event, Handler, Value};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(5);
    let seconds: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(5);

    let mut dt = Dtrace::open(true)?;
    dt.compile_str("syscall:::entry { @calls[execname] = count(); }", &[])?;
    let mut session = dt.exec()?;
    let mut ignore = |_: &Event| ControlFlow::Continue(());
    session.go(&mut Handler::new(&mut ignore))?;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_secs(1));
        // Reads (and drops) the records, so that drops are counted.
        if session.consume(Duration::ZERO, &mut ignore)?.is_break() {
            break;
        }
        // Rows come sorted by value, smallest first: the busiest are last.
        let snapshot = session.snapshot()?;
        let Some(calls) = snapshot.first() else {
            continue;
        };
        println!("-- {:>3}s --", start.elapsed().as_secs());
        for row in calls.rows.iter().rev().take(n) {
            let name = match row.keys.first() {
                Some(Value::Str(s)) => String::from_utf8_lossy(s).into_owned(),
                _ => "?".into(),
            };
            if let Some(Some(AggValue::Scalar(count))) = row.values.first() {
                println!("{name:<20} {count:>10}");
            }
        }
    }
    session.stop(&mut Handler::new(&mut ignore))?;
    Ok(())
}
