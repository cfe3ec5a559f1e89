//! A one-liner runner: compiles a D program given on the command line, runs it
//! for at most the given seconds (or until it calls `exit()`), and prints
//! dtrace(1)'s text output.
//!
//! ```text
//! sudo cargo run --example oneliner -- 'syscall::read:entry { @[execname] = count(); }' 3
//! ```

use dtrace::{Dtrace, TextOutput, WorkStatus};
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let program = args.next().ok_or("usage: oneliner 'D program' [seconds]")?;
    let seconds: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(5);

    let mut dt = Dtrace::open(true)?;
    let info = dt.compile_str(&program, &[])?;
    eprintln!("matched {} probes", info.matched);
    let mut session = dt.exec()?;
    let mut out = TextOutput::new(std::io::stdout(), std::io::stderr());
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut status = session.go(&mut out)?;
    while status == WorkStatus::Okay && Instant::now() < deadline {
        status = session.work(Duration::from_millis(100), &mut out)?;
    }
    session.stop(&mut out)?;
    let code = session.finish(&mut out)?;
    std::process::exit(code);
}
