//! The cost of an output per event (`cargo bench -p dtrace-consumer --bench
//! outputs`): the same records (a probe firing with a printf of a string and
//! an integer, and a trace() of a 64-bit value) decoded and written by
//! dtrace(1)'s text output, the JSON document and NDJSON, into a sink. No root
//! needed. Each measurement is repeated; the minimum and median ns per record
//! are printed. Results go to docs/PERFORMANCE.md ("Output formats").

use dtrace_consumer::{
    AggEntries, AggSource, Consumer, ConsumerOptions, JsonFormat, JsonOutput, Output, TextOutput,
};
use dtrace_desc::{ActionDesc, ActionKind, EpidDesc, Field, ProbeName, ProgramDesc, ValueType};
use std::io::sink;
use std::time::Instant;

struct NoAggs;

impl AggSource for NoAggs {
    fn snapshot(&mut self, _: u32, _: &mut AggEntries) {}
    fn clear(&mut self, _: u32) {}
    fn remove(&mut self, _: u32, _: &[u8]) {}
}

fn desc() -> ProgramDesc {
    let field = |offset, ty| Field { offset, ty };
    let mut d = ProgramDesc::default();
    d.epids.insert(
        1,
        EpidDesc {
            epid: 1,
            clause: 0,
            size: 64,
            actions: vec![
                ActionDesc {
                    kind: ActionKind::Printf {
                        format: "%s read %d bytes\n".into(),
                    },
                    fields: vec![
                        field(16, ValueType::String { size: 16 }),
                        field(
                            32,
                            ValueType::Int {
                                size: 8,
                                signed: true,
                            },
                        ),
                    ],
                },
                ActionDesc {
                    kind: ActionKind::Trace,
                    fields: vec![field(
                        40,
                        ValueType::Int {
                            size: 8,
                            signed: false,
                        },
                    )],
                },
            ],
        },
    );
    // The throughput case: `printf("%d %d\n", pid, timestamp)`, quiet.
    d.epids.insert(
        2,
        EpidDesc {
            epid: 2,
            clause: 1,
            size: 32,
            actions: vec![ActionDesc {
                kind: ActionKind::Printf {
                    format: "%d %d\n".into(),
                },
                fields: vec![
                    field(
                        16,
                        ValueType::Int {
                            size: 4,
                            signed: true,
                        },
                    ),
                    field(
                        24,
                        ValueType::Int {
                            size: 8,
                            signed: false,
                        },
                    ),
                ],
            }],
        },
    );
    d.probes.insert(
        7,
        ProbeName {
            provider: "syscall".into(),
            module: "vmlinux".into(),
            function: "read".into(),
            name: "entry".into(),
        },
    );
    d
}

/// A record of the quiet `printf("%d %d\n", pid, timestamp)` clause.
fn printf_record(i: u64) -> Vec<u8> {
    let mut r = vec![0u8; 32];
    r[0..4].copy_from_slice(&2u32.to_ne_bytes());
    r[4..8].copy_from_slice(&7u32.to_ne_bytes());
    r[16..20].copy_from_slice(&(4242 + i as i32 % 7).to_ne_bytes());
    r[24..32].copy_from_slice(&(1_000_000_000_000 + i * 2_500).to_ne_bytes());
    r
}

fn record(i: u64) -> Vec<u8> {
    let mut r = vec![0u8; 64];
    r[0..4].copy_from_slice(&1u32.to_ne_bytes());
    r[4..8].copy_from_slice(&7u32.to_ne_bytes());
    r[16..20].copy_from_slice(b"bash");
    r[32..40].copy_from_slice(&(i as i64 * 17).to_ne_bytes());
    r[40..48].copy_from_slice(&(u64::MAX - i).to_ne_bytes());
    r
}

/// Makes a fresh output for one round.
type MakeOutput = Box<dyn Fn() -> Box<dyn Output>>;

/// ns per record: (min, median) over `rounds` runs of `n` records.
fn measure(
    make: &dyn Fn() -> Box<dyn Output>,
    rec: fn(u64) -> Vec<u8>,
    opts: &ConsumerOptions,
    n: u64,
    rounds: usize,
) -> (f64, f64) {
    let recs: Vec<Vec<u8>> = (0..n).map(rec).collect();
    let mut times = Vec::new();
    for _ in 0..rounds {
        let mut c = Consumer::new(desc(), opts.clone());
        let mut out = make();
        let t = Instant::now();
        for r in &recs {
            let _ = c.record(r, &mut *out, &mut NoAggs);
        }
        let _ = out.flush();
        times.push(t.elapsed().as_nanos() as f64 / n as f64);
    }
    times.sort_by(f64::total_cmp);
    (times[0], times[times.len() / 2])
}

fn main() {
    let n = 200_000;
    let rounds = 7;
    let outputs: [(&str, MakeOutput); 3] = [
        (
            "text",
            Box::new(|| Box::new(TextOutput::new(sink(), sink()))),
        ),
        (
            "json",
            Box::new(|| Box::new(JsonOutput::new(sink(), sink(), JsonFormat::Document))),
        ),
        (
            "ndjson",
            Box::new(|| Box::new(JsonOutput::new(sink(), sink(), JsonFormat::Ndjson))),
        ),
    ];
    let defaults = ConsumerOptions::default();
    for (name, make) in &outputs {
        let (min, median) = measure(make.as_ref(), record, &defaults, n, rounds);
        println!(
            "{name:<7} {min:>8.0} ns/record min {median:>8.0} median ({n} records x {rounds})"
        );
    }
    // dtrace -q -n '... { printf("%d %d\n", pid, timestamp); }' as text.
    let quiet = ConsumerOptions {
        quiet: true,
        ..ConsumerOptions::default()
    };
    let (min, median) = measure(outputs[0].1.as_ref(), printf_record, &quiet, n, rounds);
    println!("printf  {min:>8.0} ns/record min {median:>8.0} median (quiet \"%d %d\\n\", {n} records x {rounds})");
}
