//! Structured output (`-O json`, `-x oformat=ndjson`) from synthetic records:
//! every record kind against a golden document compared as JSON values, with
//! 64-bit integers kept exact (serde_json's `arbitrary_precision`); the
//! document parses as exactly one value; each NDJSON line parses alone and is
//! the document's probe object.

mod common;

use common::*;
use dtrace_consumer::*;
use dtrace_desc::*;
use serde_json::Value as Json;

const SYMS: [(u64, &str, Option<&str>); 3] = [
    (0xffff_1000, "ksys_read", None),
    (0xffff_2000, "do_syscall_64", None),
    (0xffff_3000, "ext4_file_read_iter", Some("ext4")),
];

fn syms() -> KernelSymbols {
    KernelSymbols::new(
        SYMS.iter()
            .map(|&(addr, name, module)| Symbol {
                addr,
                name: name.into(),
                module: module.map(str::to_string),
            })
            .collect(),
    )
}

fn field(offset: u32, ty: ValueType) -> Field {
    Field { offset, ty }
}

fn u64key(v: u64) -> Vec<u8> {
    v.to_ne_bytes().to_vec()
}

/// Clause 1 traces one of each value kind and calls exit(); clause 2 prints
/// every aggregating function with printa(); clause 3 print()s an int.
fn desc() -> ProgramDesc {
    let clause1 = vec![
        trace(int(16, 8, true)),
        trace(int(24, 8, false)),
        trace(string(32, 16)),
        trace(field(48, ValueType::Pointer)),
        printf("%s=%d\n", vec![string(56, 8), int(64, 4, true)]),
        action(
            ActionKind::Tracemem,
            vec![field(72, ValueType::Bytes { size: 8 })],
        ),
        action(
            ActionKind::Symbol { module: false },
            vec![int(80, 8, false)],
        ),
        action(ActionKind::Symbol { module: true }, vec![int(88, 8, false)]),
        trace(field(96, ValueType::Bytes { size: 4 })),
        trace(field(
            104,
            ValueType::Stack {
                frames: 2,
                user: false,
            },
        )),
        action(ActionKind::Exit, vec![int(120, 4, true)]),
    ];
    let clause2 = (1..=7).map(|id| printa(None, vec![id])).collect();
    let clause3 = vec![action(
        ActionKind::Print {
            ty: PrintType::Int {
                name: "int".into(),
                size: 4,
                signed: true,
            },
        },
        vec![field(16, ValueType::Bytes { size: 4 })],
    )];
    let mut d = program(
        vec![(128, clause1), (16, clause2), (24, clause3)],
        vec![
            (1, probe("dtrace", "", "", "BEGIN")),
            (2, probe("dtrace", "", "", "END")),
            (9, probe("syscall", "vmlinux", "read", "entry")),
        ],
    );
    let lq = AggFunc::Lquantize {
        base: 0,
        limit: 10,
        step: 5,
    };
    let llq = AggFunc::Llquantize {
        factor: 10,
        low: 0,
        high: 2,
        nsteps: 10,
    };
    for a in [
        agg(1, "calls", AggFunc::Count, vec![string(0, 8)], 8),
        agg(2, "lat", AggFunc::Quantize, vec![], 8),
        agg(3, "lin", lq, vec![], 8),
        agg(4, "mean", AggFunc::Avg, vec![int(0, 8, true)], 8),
        agg(5, "sd", AggFunc::Stddev, vec![], 8),
        agg(6, "log", llq, vec![], 8),
        agg(7, "", AggFunc::Max, vec![], 8),
        agg(8, "tail", AggFunc::Sum, vec![int(0, 8, false)], 8),
    ] {
        d.aggs.insert(a.id, a);
    }
    d
}

fn aggs() -> Aggs {
    let mut a = Aggs::default();
    a.add(1, skey("bash", 8), vec![words(&[40]), words(&[2])]);
    a.add(1, skey("sshd", 8), vec![words(&[7])]);
    let mut q = vec![0i64; QUANTIZE_NBUCKETS];
    q[QUANTIZE_ZERO_BUCKET + 10] = 12; // 512
    q[QUANTIZE_ZERO_BUCKET + 11] = 40; // 1024
    a.add(2, vec![0; 8], vec![words(&q)]);
    // lquantize(x, 0, 10, 5): below 0, [0,5), [5,10), >= 10.
    a.add(3, vec![0; 8], vec![words(&[3, 0, 1, 2])]);
    a.add(4, u64key(u64::MAX), vec![words(&[2, 9])]);
    // stddev of 2 and 4: count 2, sum 6, sum of squares 20.
    a.add(5, vec![0; 8], vec![words(&[2, 6, 20, 0])]);
    let n = llquantize_nbuckets(10, 0, 2, 10);
    let mut l = vec![0i64; n];
    l[n - 1] = 5;
    a.add(6, vec![0; 8], vec![words(&l)]);
    a.add(7, vec![0; 8], vec![words(&[1, 1 << 62])]);
    a.add(8, u64key(3), vec![words(&[-9])]);
    a
}

fn records() -> Vec<Vec<u8>> {
    let mut stack = 0xffff_1008u64.to_ne_bytes().to_vec();
    stack.extend_from_slice(&0xffff_3010u64.to_ne_bytes());
    let r1 = Rec::new(1, 1, 0, 128)
        .i64(16, -2)
        .u64(24, u64::MAX)
        .str(32, "say \"hi\"\n")
        .u64(48, 0xffff_8880_0000_1000)
        .str(56, "x")
        .i32(64, 7)
        .put(72, &[0, 1, 2, 0xff, b'a', 0, 0, 0])
        .u64(80, 0xffff_1004)
        .u64(88, 0xffff_3004)
        .put(96, &[1, 2, 3, 4])
        .put(104, &stack)
        .i32(120, 3)
        .0;
    let r2 = Rec::new(2, 2, 1, 16).0;
    let r3 = Rec::new(3, 9, 3, 24).i32(16, 7).0;
    let fault = Rec::new(EPID_FAULT, 9, 2, 40)
        .put(16, &3u32.to_ne_bytes())
        .put(20, &0u32.to_ne_bytes())
        .put(24, &(FaultKind::BadAddr as u32).to_ne_bytes())
        .put(28, &28u32.to_ne_bytes())
        .u64(32, 0x10)
        .0;
    vec![r1, r2, r3, fault]
}

/// Runs every record kind through a JSON output of `format`.
fn run_json(format: JsonFormat) -> String {
    let mut c = Consumer::new(desc(), ConsumerOptions::default());
    c.set_symbols(syms());
    let mut out = JsonOutput::new(Vec::new(), Vec::new(), format);
    let mut aggs = aggs();
    for r in records() {
        c.record(&r, &mut out, &mut aggs).expect("record");
    }
    c.drops(
        &[
            (0, DropKind::Principal, 4),
            (1, DropKind::Dynamic, 2),
            (0, DropKind::SpecUnavail, 1),
        ],
        &mut out,
    )
    .expect("drops");
    c.finish(&mut out, &mut aggs).expect("finish");
    out.close().expect("close");
    let (bytes, err) = out.into_parts();
    assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    String::from_utf8(bytes).expect("UTF-8")
}

/// Every `timestamp` must be a positive integer; it is then set to 0.
fn zero_timestamps(v: &mut Json) {
    match v {
        Json::Object(m) => {
            if let Some(t) = m.get_mut("timestamp") {
                let n: u128 = t.to_string().parse().expect("integer timestamp");
                assert!(n > 0);
                *t = Json::from(0);
            }
            m.values_mut().for_each(zero_timestamps);
        }
        Json::Array(a) => a.iter_mut().for_each(zero_timestamps),
        _ => {}
    }
}

fn golden() -> Json {
    serde_json::from_str(include_str!("golden/records.json")).expect("golden parses")
}

#[test]
fn document_matches_golden_as_values() {
    let text = run_json(JsonFormat::Document);
    // Exactly one value: from_str refuses trailing data.
    let mut doc: Json = serde_json::from_str(&text).expect("one JSON document");
    zero_timestamps(&mut doc);
    let want = golden();
    if doc != want {
        panic!(
            "got:\n{}\nwant:\n{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default(),
            serde_json::to_string_pretty(&want).unwrap_or_default()
        );
    }
}

#[test]
fn unsigned_64_bit_values_stay_exact() {
    let text = run_json(JsonFormat::Document);
    // u64::MAX is not representable as a double; it must be the exact literal.
    assert!(text.contains("{\"value\":18446744073709551615}"));
    let doc: Json = serde_json::from_str(&text).expect("parses");
    let v = &doc["dtrace"]["probes"][0]["output"][1]["value"];
    assert_eq!(v.to_string(), "18446744073709551615");
}

#[test]
fn ndjson_lines_parse_alone_and_match_the_document() {
    let text = run_json(JsonFormat::Ndjson);
    assert!(text.ends_with('\n'));
    let mut lines: Vec<Json> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON value"))
        .collect();
    lines.iter_mut().for_each(zero_timestamps);
    let want = golden();
    let probes = want["dtrace"]["probes"].as_array().expect("probes");
    assert_eq!(&lines, probes);
}

#[test]
fn empty_document_is_valid() {
    let mut out = JsonOutput::new(Vec::new(), Vec::new(), JsonFormat::Document);
    out.close().expect("close");
    out.close().expect("second close does nothing");
    let (bytes, _) = out.into_parts();
    let doc: Json = serde_json::from_slice(&bytes).expect("parses");
    assert_eq!(doc, serde_json::json!({"dtrace": {"probes": []}}));
}

#[test]
fn strings_are_escaped() {
    let mut c = Consumer::new(
        program(
            vec![(32, vec![trace(string(16, 16))])],
            vec![(1, probe("dtrace", "", "", "BEGIN"))],
        ),
        ConsumerOptions::default(),
    );
    let mut out = JsonOutput::new(Vec::new(), Vec::new(), JsonFormat::Ndjson);
    let r = Rec::new(1, 1, 0, 32).put(16, b"a\"\\\t\x01\x7fz").0;
    c.record(&r, &mut out, &mut Aggs::default())
        .expect("record");
    let (bytes, _) = out.into_parts();
    let line: Json = serde_json::from_slice(&bytes).expect("parses");
    assert_eq!(line["output"][0]["value"], "a\"\\\t\u{1}\u{7f}z");
}

#[test]
fn pretty_document_is_the_same_value_indented() {
    let text = run_json(JsonFormat::PrettyDocument);
    assert!(
        text.starts_with("{\n  \"dtrace\": {\n    \"probes\": [\n      {\n        \"timestamp\": ")
    );
    assert!(text.ends_with("\n    ]\n  }\n}\n"));
    let mut doc: Json = serde_json::from_str(&text).expect("one JSON document");
    zero_timestamps(&mut doc);
    assert_eq!(doc, golden());
    // Empty objects and arrays stay on one line; strings keep their commas.
    assert!(text.contains("\"keys\": []"));
    assert!(text.contains("\"module\": \"\""));
    let mut empty = JsonOutput::new(Vec::new(), Vec::new(), JsonFormat::PrettyDocument);
    empty.close().expect("close");
    let (bytes, _) = empty.into_parts();
    let doc: Json = serde_json::from_slice(&bytes).expect("parses");
    assert_eq!(doc, serde_json::json!({"dtrace": {"probes": []}}));
}
