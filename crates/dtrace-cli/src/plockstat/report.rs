//! plockstat's report, as Solaris's plockstat prints it: each section's
//! title (traced by the program's END clauses), then one row per lock and
//! caller from the `printa()` that follows it:
//!
//! ```text
//!
//! Mutex block
//!
//! Count     nsec Lock                         Caller
//! -------------------------------------------------------------------------------
//!    19  9654321 contend`biglock              contend`take+0x1c
//! ```
//!
//! `Count` is the number of events, `nsec` their mean duration, `Lock` the
//! lock's variable (`module`variable`, else its address in hex), `Caller`
//! the caller's return address as `module`function+0xoff`. Rows come hottest
//! first (by total time: the program's first aggregation, sorted with
//! `aggsortrev`), at most `-n` of them. With `-s` each row has its own legend
//! and a histogram of its times beside its stack: each power-of-two bucket
//! labelled with its upper bound, as plockstat labels them.

use std::io::Write;

use dtrace::{AggValue, ConsumeError, Context, Event, Output, TextOutput, Value};

/// The rule under the legend.
const BAR: &str = "-------------------------------------------------------------------------------";
/// The `@`s of a histogram bar (24 columns at most).
const BAR_WIDTH: u64 = 24;
/// The zero bucket of a `quantize()` distribution.
const ZERO_BUCKET: usize = 63;

/// Names a user address of a process: the lock's variable and the caller.
pub trait Names {
    /// The variable holding `addr`, if a symbol covers it.
    fn variable(&self, pid: u32, addr: u64) -> Option<String>;
    /// A return address as a stack frame prints it.
    fn frame(&self, pid: u32, addr: u64) -> String;
}

impl Names for Context<'_> {
    fn variable(&self, pid: u32, addr: u64) -> Option<String> {
        self.env.usyms.describe_data(pid, addr)
    }

    fn frame(&self, pid: u32, addr: u64) -> String {
        self.env.usyms.describe_return(pid, addr)
    }
}

/// The report as an [`Output`]: section titles and `printa()` rows become
/// the report's text; faults and drops go to stderr as dtrace(1) words them.
pub struct Report<W: Write> {
    out: W,
    /// The traced process (the callers are its addresses).
    pid: u32,
    /// `-s depth`: histograms and stacks.
    depth: Option<u32>,
    /// `-n count`: rows per section.
    count: Option<u64>,
    errors: TextOutput<std::io::Sink, std::io::Stderr>,
}

impl<W: Write> Report<W> {
    pub fn new(out: W, pid: u32, depth: Option<u32>, count: Option<u64>) -> Report<W> {
        Report {
            out,
            pid,
            depth,
            count,
            errors: TextOutput::new(std::io::sink(), std::io::stderr()),
        }
    }

    pub fn out_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The text for a section title.
    pub fn title(&self, title: &str) -> String {
        let mut s = format!("\n{title}\n\n");
        if self.depth.is_none() {
            s.push_str(&legend());
            s.push_str(BAR);
            s.push('\n');
        }
        s
    }

    /// The text for the rows of one `printa()`: `keys` (lock, then caller
    /// or stack) with `values` (sum, count and, with `-s`, the distribution).
    pub fn rows(&self, rows: &[(Vec<Value>, Vec<Option<AggValue>>)], names: &dyn Names) -> String {
        let mut s = String::new();
        let limit = self.count.unwrap_or(u64::MAX);
        for (keys, values) in rows
            .iter()
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
        {
            let scalar = |i: usize| {
                values
                    .get(i)
                    .and_then(|v| v.as_ref())
                    .and_then(AggValue::scalar)
                    .unwrap_or(0)
            };
            let (sum, count) = (scalar(0).max(0) as u64, scalar(1).max(0) as u64);
            let lock = keys.first().map(Value::as_u64).unwrap_or(0);
            let (pid, frames) = match keys.get(1) {
                Some(Value::UStack { pid, pcs }) => (
                    u32::try_from(*pid).unwrap_or(self.pid),
                    pcs.iter().copied().take_while(|&pc| pc != 0).collect(),
                ),
                Some(v) => (self.pid, vec![v.as_u64()]),
                None => (self.pid, Vec::new()),
            };
            let lock_text = names
                .variable(pid, lock)
                .unwrap_or_else(|| format!("{lock:#x}"));
            let caller = frames
                .first()
                .map(|&pc| names.frame(pid, pc))
                .unwrap_or_default();
            if self.depth.is_some() {
                s.push_str(BAR);
                s.push('\n');
                s.push_str(&legend());
            }
            let avg = sum.checked_div(count).unwrap_or(0);
            s.push_str(&format!("{count:5} {avg:8} {lock_text:<28} {caller}\n"));
            if let (Some(depth), Some(Some(AggValue::Dist(buckets)))) = (self.depth, values.get(2))
            {
                let frames: Vec<String> = frames
                    .iter()
                    .take(depth.max(1) as usize)
                    .map(|&pc| names.frame(pid, pc))
                    .collect();
                s.push_str(&histogram(buckets, count, &frames));
            }
        }
        s
    }
}

fn legend() -> String {
    format!("{:>5} {:>8} {:<28} {}\n", "Count", "nsec", "Lock", "Caller")
}

/// A row's histogram beside its stack: one line per bucket from the first
/// to the last that holds a time, then the rest of the stack.
fn histogram(buckets: &[i64], count: u64, frames: &[String]) -> String {
    let mut s = format!(
        "\n{:>10} ---- Time Distribution --- {:>5} {}\n",
        "nsec", "count", "Stack"
    );
    let upper = buckets.len().min(ZERO_BUCKET + 64);
    let used: Vec<usize> = (ZERO_BUCKET..upper)
        .filter(|&i| buckets.get(i).is_some_and(|&n| n > 0))
        .collect();
    let (Some(&first), Some(&last)) = (used.first(), used.last()) else {
        return s;
    };
    let lines = (last - first + 1).max(frames.len());
    for i in 0..lines {
        let frame = frames.get(i).map(String::as_str).unwrap_or("");
        let bin = first + i;
        if bin <= last {
            let n = buckets.get(bin).copied().unwrap_or(0).max(0) as u64;
            let width = (BAR_WIDTH * n)
                .checked_div(count)
                .unwrap_or(0)
                .min(BAR_WIDTH) as usize;
            let label = 1u64
                .checked_shl((bin - ZERO_BUCKET) as u32)
                .unwrap_or(u64::MAX);
            s.push_str(&format!(
                "{label:10} |{:<24}| {n:5} {frame}\n",
                "@".repeat(width)
            ));
        } else {
            s.push_str(&format!("{:43} {frame}\n", ""));
        }
    }
    s
}

impl<W: Write> Output for Report<W> {
    fn event(&mut self, cx: &Context<'_>, ev: &Event) -> Result<(), ConsumeError> {
        let text = match ev {
            Event::Trace(Value::Str(title)) => self.title(&String::from_utf8_lossy(title)),
            Event::Printa(report) => {
                let rows: Vec<(Vec<Value>, Vec<Option<AggValue>>)> = report
                    .rows
                    .iter()
                    .map(|r| (r.keys.to_vec(), r.values.to_vec()))
                    .collect();
                self.rows(&rows, cx)
            }
            Event::Fault(_) | Event::Drop(_) => return self.errors.event(cx, ev),
            _ => return Ok(()),
        };
        let _ = self.out.write_all(text.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;

    impl Names for Fake {
        fn variable(&self, _pid: u32, addr: u64) -> Option<String> {
            (addr == 0x1000).then(|| "prog`biglock".to_string())
        }
        fn frame(&self, _pid: u32, addr: u64) -> String {
            format!("prog`f{addr:x}+0x4")
        }
    }

    fn int(v: u64) -> Value {
        Value::Int {
            bits: v,
            size: 8,
            signed: false,
        }
    }

    #[test]
    fn titles_carry_the_legend_without_stacks() {
        let r = Report::new(Vec::new(), 1, None, None);
        assert_eq!(
            r.title("Mutex block"),
            format!("\nMutex block\n\nCount     nsec Lock                         Caller\n{BAR}\n")
        );
        assert_eq!(BAR.len(), 79);
        let r = Report::new(Vec::new(), 1, Some(4), None);
        assert_eq!(r.title("Mutex hold"), "\nMutex hold\n\n");
    }

    #[test]
    fn rows_give_count_mean_lock_and_caller() {
        let r = Report::new(Vec::new(), 1, None, Some(2));
        let row = |lock, caller, sum: i64, n: i64| {
            (
                vec![int(lock), int(caller)],
                vec![Some(AggValue::Scalar(sum)), Some(AggValue::Scalar(n))],
            )
        };
        let rows = [
            row(0x1000, 0xa0, 1900, 19),
            row(0x55aa, 0xb0, 300, 2),
            row(0x1000, 0xc0, 1, 1),
        ];
        assert_eq!(
            r.rows(&rows, &Fake),
            "   19      100 prog`biglock                 prog`fa0+0x4\n\
             \x20   2      150 0x55aa                       prog`fb0+0x4\n"
        );
    }

    #[test]
    fn stacks_come_with_a_histogram() {
        let r = Report::new(Vec::new(), 1, Some(3), None);
        let mut dist = vec![0i64; 127];
        dist[ZERO_BUCKET + 10] = 3; // 512..1023 ns
        dist[ZERO_BUCKET + 12] = 1; // 2048..4095 ns
        let rows = [(
            vec![
                int(0x1000),
                Value::UStack {
                    pid: 1,
                    pcs: vec![0xa0, 0xb0, 0, 0],
                },
            ],
            vec![
                Some(AggValue::Scalar(4000)),
                Some(AggValue::Scalar(4)),
                Some(AggValue::Dist(dist)),
            ],
        )];
        let want = format!(
            "{BAR}\nCount     nsec Lock                         Caller\n\
             \x20   4     1000 prog`biglock                 prog`fa0+0x4\n\
             \n      nsec ---- Time Distribution --- count Stack\n\
             \x20     1024 |@@@@@@@@@@@@@@@@@@      |     3 prog`fa0+0x4\n\
             \x20     2048 |                        |     0 prog`fb0+0x4\n\
             \x20     4096 |@@@@@@                  |     1 \n"
        );
        assert_eq!(r.rows(&rows, &Fake), want);
    }

    #[test]
    fn a_stack_longer_than_the_histogram_goes_on_below_it() {
        let mut dist = vec![0i64; 127];
        dist[ZERO_BUCKET + 1] = 2;
        let frames: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let h = histogram(&dist, 2, &frames);
        let lines: Vec<&str> = h.lines().collect();
        assert_eq!(lines[2], "         2 |@@@@@@@@@@@@@@@@@@@@@@@@|     2 a");
        assert_eq!(lines[3], format!("{:43} b", ""));
        assert_eq!(lines[4], format!("{:43} c", ""));
    }
}
