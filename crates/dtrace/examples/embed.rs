//! An embedding: the program's records go into the caller's own data
//! structure. Each `read(2)` traces the process name and the byte count; the
//! handler keeps per-process totals and a histogram of its own.
//!
//! ```text
//! sudo cargo run --example embed -- 3
//! ```

use dtrace::{Dtrace, Event, Handler, Value};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// What the embedding keeps: bytes asked for per process, and how many reads
/// asked for each power of two.
#[derive(Default)]
struct Reads {
    bytes: BTreeMap<String, u64>,
    sizes: BTreeMap<u32, u64>,
    /// The fields of the current record, in order.
    fields: Vec<Value>,
}

impl Reads {
    fn event(&mut self, ev: &Event) -> ControlFlow<()> {
        match ev {
            Event::Probe(_) => self.fields.clear(),
            Event::Trace(v) => self.fields.push(v.clone()),
            Event::ProbeEnd => {
                if let [Value::Str(name), size] = &self.fields[..] {
                    let size = size.as_u64();
                    let name = String::from_utf8_lossy(name).into_owned();
                    *self.bytes.entry(name).or_default() += size;
                    *self.sizes.entry(64 - size.leading_zeros()).or_default() += 1;
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(3);
    let mut dt = Dtrace::open(true)?;
    dt.set_opt("quiet", None)?;
    dt.compile_str(
        "syscall::read:entry { trace(execname); trace((uint64_t)arg2); }",
        &[],
    )?;
    let mut session = dt.exec()?;
    let mut reads = Reads::default();
    session.go(&mut Handler::new(|ev: &Event| reads.event(ev)))?;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(seconds) {
        if session
            .consume(Duration::from_millis(200), |ev| reads.event(ev))?
            .is_break()
        {
            break;
        }
    }
    session.stop(&mut Handler::new(|ev: &Event| reads.event(ev)))?;
    for (name, bytes) in &reads.bytes {
        println!("{name:<20} {bytes:>12} bytes asked for");
    }
    for (bits, n) in &reads.sizes {
        println!("reads of < 2^{bits:<2} bytes: {n}");
    }
    Ok(())
}
